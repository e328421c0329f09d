"""Safe HTML rendering of participants' logbooks for the public board.

Every piece of participant content is hostile. Markdown goes through markdown-it-py with raw HTML
disabled and a strict link validator, then through ``nh3`` with an explicit allow-list, so that a
bypass of one layer is still caught by the other. Everything else a participant wrote (titles,
commands, output, scripts, file names, metric keys) is escaped with :func:`html.escape`. The page
is self-contained: inline CSS, inline SVG charts drawn here from numbers only, no JavaScript, and
a Content-Security-Policy that forbids loading anything but same-origin images.
"""

from __future__ import annotations

import hashlib
import html
import math
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererProtocol
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from openrepro.logbooks.limits import markdown_within_budget
from openrepro.logbooks.records import Artifact, Cell, FileRef, LogbookRecord, Metric, Page, Run
from openrepro.logbooks.runs import RunFinder

__all__ = [
    "is_safe_url",
    "metric_anchor",
    "public_text",
    "render_logbook",
    "render_markdown",
    "run_anchor",
    "run_label",
]

FileUrl = Callable[[FileRef], str | None]

MAX_OUTPUT_CHARS = 20_000
MAX_SCRIPT_CHARS = 20_000
MAX_TABLE_ROWS = 200
MAX_CHART_POINTS = 500
MAX_CHART_MARKERS = 50  # series this short also show a dot per point
IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})

_URL_SCHEMES = frozenset({"http", "https", "mailto"})
# terminal control sequences (colours, cursor moves, titles) as Trackio keeps them in outputs
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
# the participant's home folder: /home/NAME, /Users/NAME, C:\Users\NAME (either slash), /root
_HOME = re.compile(
    r"(?<![\w.~-])(?:/home/[^/\s\"'<>&]+|/Users/[^/\s\"'<>&]+|/root(?=[/\s\"'<&]|$)"
    r"|[A-Za-z]:[\\/]Users[\\/][^\\/\s\"'<>&]+)",
    re.IGNORECASE,
)
_TAGS = frozenset(
    {
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "a", "em", "strong", "del",
        "code", "pre", "blockquote", "table", "thead", "tbody", "tr", "th", "td", "hr", "br",
        "img", "span",
    }
)  # fmt: skip
_ATTRIBUTES: dict[str, frozenset[str]] = {
    "a": frozenset({"href", "title"}),
    "img": frozenset({"src", "alt", "title"}),
    "code": frozenset({"class"}),
}
_LINK_REL = "nofollow noopener noreferrer"
_LANGUAGE_CLASS = re.compile(r"language-[A-Za-z0-9_+#.-]{1,40}")
# Characters a browser ignores or strips inside a URL scheme: C0/C1 controls, space, soft hyphen,
# zero-width and bidi marks, BOM.
_INVISIBLE = re.compile(r"[\x00-\x20\x7f-\x9f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")
_SCHEME = re.compile(r"^([^/?#]*?):")

_NOT_OWN = ' <span class="or-bad">(not a file of this logbook)</span>'

CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'"


# --- URLs and Markdown ---------------------------------------------------------------------------


def _decoded(url: str) -> str:
    """The URL with entities and percent-escapes undone (repeatedly) and invisibles removed."""
    text = url
    for _ in range(5):
        decoded = html.unescape(unquote(text))
        if decoded == text:
            break
        text = decoded
    return _INVISIBLE.sub("", text).lower()


def is_safe_url(url: str) -> bool:
    """Whether ``url`` is relative or uses http(s)/mailto, however its scheme is disguised."""
    match = _SCHEME.match(_decoded(url))
    return match is None or match.group(1) in _URL_SCHEMES


class _SafeMarkdownIt(MarkdownIt):
    """markdown-it whose link validator lets only http(s), mailto and relative URLs through."""

    def validateLink(self, url: str) -> bool:  # markdown-it's name for the hook
        return is_safe_url(url)


def _del_open(
    renderer: RendererProtocol,
    tokens: Sequence[Token],
    idx: int,
    options: OptionsDict,
    env: EnvType,
) -> str:
    return "<del>"


def _del_close(
    renderer: RendererProtocol,
    tokens: Sequence[Token],
    idx: int,
    options: OptionsDict,
    env: EnvType,
) -> str:
    return "</del>"


def _markdown(*, images: bool) -> MarkdownIt:
    md = _SafeMarkdownIt("js-default").enable(["table", "strikethrough"])
    md.add_render_rule("s_open", _del_open)  # ~~x~~ as <del>, the tag the allow-list keeps
    md.add_render_rule("s_close", _del_close)
    return md if images else md.disable("image")


_MD = _markdown(images=True)
_MD_NO_IMAGES = _markdown(images=False)


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    """Keep only ``language-*`` classes on code (no borrowing of the board's own classes)."""
    if tag == "code" and attribute == "class":
        kept = [c for c in value.split() if _LANGUAGE_CLASS.fullmatch(c)]
        return " ".join(kept) or None
    if attribute in {"href", "src"} and not is_safe_url(value):
        return None
    if attribute == "src":  # an image from elsewhere is a tracking pixel: own files only
        parts = urlsplit(value.strip())
        if parts.netloc or parts.scheme.lower() not in {"", "data"}:
            return None
    return value


def _clean(fragment: str) -> str:
    return nh3.clean(
        fragment,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        attribute_filter=_attribute_filter,
        url_schemes=_URL_SCHEMES,
        link_rel=_LINK_REL,
    )


def render_markdown(text: str, *, images: bool = True) -> str:
    """Participant Markdown to sanitised HTML (``images=False`` turns ``![..](..)`` into links).

    Under a render budget (:func:`~openrepro.logbooks.limits.markdown_within_budget`): text the
    parser would take seconds or minutes on (``"![" * 300000``: brackets it scans to the end
    of the paragraph for each) is shown as plain, escaped text instead."""
    if not markdown_within_budget(text):
        return f'<pre class="or-plain">{html.escape(text, quote=True)}</pre>'
    md = _MD if images else _MD_NO_IMAGES
    return _clean(md.render(text))


# --- small HTML helpers --------------------------------------------------------------------------


def public_text(text: str) -> str:
    """``text`` as a logbook page publishes it: terminal colour codes and other control
    sequences removed, and the participant's home folder (``/home/NAME``, ``/Users/NAME``,
    ``C:\\Users\\NAME``, ``/root``) written ``~``, so a page shows neither escape garbage nor
    who ran it where."""
    return _HOME.sub("~", _ANSI.sub("", text))


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _truncated(text: str, limit: int) -> tuple[str, str]:
    """The text cut to ``limit`` characters, and a note (empty when nothing was cut)."""
    if len(text) <= limit:
        return text, ""
    return text[:limit], f"Truncated: showing the first {limit:,} of {len(text):,} characters."


def _pre(text: str, limit: int, css: str = "") -> str:
    shown, note = _truncated(text, limit)
    cls = f' class="{css}"' if css else ""
    note_html = f'<p class="or-note">{_e(note)}</p>' if note else ""
    return f"<pre{cls}>{_e(shown)}</pre>{note_html}"


def _testimony(body_html: str) -> str:
    return (
        '<div class="or-testimony"><p class="or-label">Testimony (participant\'s own words, '
        "not evidence)</p>" + body_html + "</div>"
    )


def _fmt_number(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else str(value)


# --- files and figures ---------------------------------------------------------------------------


def _is_safe_path(path: str) -> bool:
    parts = path.split("/")
    return (
        bool(path) and "\\" not in path and ":" not in path and ".." not in parts and parts[0] != ""
    )


def _own_file(record: LogbookRecord, ref: FileRef) -> bool:
    """Whether ``ref`` is a file of this logbook (same path and hash in ``record.files``)."""
    if not _is_safe_path(ref.path):
        return False
    return any(f.path == ref.path and f.sha256 == ref.sha256 for f in record.files)


def _is_image(ref: FileRef) -> bool:
    name = ref.path.rsplit("/", 1)[-1].lower()
    return any(name.endswith(ext) for ext in IMAGE_EXTENSIONS)


def _file_link(record: LogbookRecord, ref: FileRef, file_url: FileUrl) -> str:
    """The file's name (a link when the board serves it) with its size and sha256."""
    url = file_url(ref) if _own_file(record, ref) else None
    name = _e(ref.path)
    label = (
        f'<a href="{_e(url)}" rel="{_LINK_REL}">{name}</a>' if url and is_safe_url(url) else name
    )
    return f'{label} <span class="or-hash">({ref.size:,} bytes, sha256 {_e(ref.sha256)})</span>'


def _figure(record: LogbookRecord, ref: FileRef, file_url: FileUrl) -> str:
    """An ``<img>`` for the logbook's own raster images; a link or the name otherwise."""
    url = file_url(ref) if _own_file(record, ref) and _is_image(ref) else None
    caption = _file_link(record, ref, file_url)
    if url and is_safe_url(url):
        img = f'<img src="{_e(url)}" alt="{_e(ref.path)}">'
        return f'<figure class="or-figure">{img}<figcaption>{caption}</figcaption></figure>'
    note = (
        ""
        if _own_file(record, ref)
        else ' <span class="or-bad">(not a file of this logbook)</span>'
    )
    return f'<p class="or-file">{caption}{note}</p>'


def _meta_paths(cell: Cell) -> list[str]:
    paths: list[str] = []
    for key in ("path", "file", "src", "files", "paths"):
        value = cell.meta.get(key)
        values = value if isinstance(value, list) else [value]
        paths.extend(v for v in values if isinstance(v, str))
    return paths


def _cell_files(record: LogbookRecord, page: Page, cell: Cell) -> tuple[list[FileRef], list[str]]:
    """Files a figure/artifact cell shows, and the references that are no file of the logbook."""
    refs = [a.file for a in record.artifacts if _artifact_in_cell(a, page, cell)]
    unknown: list[str] = []
    by_path = {f.path: f for f in record.files}
    for path in _meta_paths(cell):
        if path in by_path and _is_safe_path(path):
            if by_path[path] not in refs:
                refs.append(by_path[path])
        else:
            unknown.append(path)
    return refs, unknown


def _artifact_in_cell(artifact: Artifact, page: Page, cell: Cell) -> bool:
    return artifact.cell == cell.id and artifact.page in ("", page.slug)


# --- runs ----------------------------------------------------------------------------------------


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x00".join(str(p) for p in parts).encode()).hexdigest()[:16]


def run_anchor(run_id: str) -> str:
    """The ``id`` of a run's section in the rendered logbook (links point at ``#<anchor>``)."""
    return f"run-{_digest(run_id)}"


def metric_anchor(run: str, key: str, step: int | None) -> str:
    """The ``id`` of a metric's row (series ``run``, ``key``, ``step``) in the rendered logbook."""
    return f"metric-{_digest(run, key, step)}"


def run_label(run: Run) -> str:
    """A run's heading: its title (or id), with "Run" in front unless the title starts with it
    (Trackio titles run cells "Run: <command>")."""
    label = run.title or run.id
    return label if label.lower().startswith("run") else f"Run {label}"


def _run_anchors(runs: Sequence[Run]) -> dict[str, str]:
    return {run.id: run_anchor(run.id) for run in runs}


def _run_html(run: Run, anchor: str, record: LogbookRecord, file_url: FileUrl) -> str:
    failed = run.exit_code is not None and run.exit_code != 0
    exit_text = "unknown" if run.exit_code is None else str(run.exit_code)
    exit_cls = "or-bad" if failed else ("or-ok" if run.exit_code == 0 else "or-note")
    duration = "unknown" if run.duration_s is None else f"{run.duration_s:.1f} s"
    parts = [
        f'<section class="or-run" id="{anchor}"><h4>{_e(run_label(run))}</h4>',
        f'<p>exit code <span class="{exit_cls}">{_e(exit_text)}</span> · duration {_e(duration)}'
        + (f" · {_e(run.created_at)}" if run.created_at else "")
        + "</p>",
        '<p class="or-label">Command</p>',
        _pre(shlex.join(run.command), MAX_SCRIPT_CHARS, "or-cmd"),
        '<p class="or-label">Output</p>',
        _pre(run.output, MAX_OUTPUT_CHARS),
    ]
    for name, source in run.scripts.items():
        parts.append(f'<p class="or-label">Script {_e(name)}</p>')
        parts.append(_pre(source, MAX_SCRIPT_CHARS))
    if run.produced:
        items = "".join(f"<li>{_file_link(record, ref, file_url)}</li>" for ref in run.produced)
        parts.append(f'<p class="or-label">Produced files</p><ul>{items}</ul>')
    parts.append("</section>")
    return "".join(parts)


def _cell_runs(record: LogbookRecord, page: Page, cell: Cell) -> list[Run]:
    wanted = {cell.id}
    meta_run = cell.meta.get("run")
    if isinstance(meta_run, str):
        wanted.add(meta_run)
    return [r for r in record.runs if r.id in wanted and r.page in ("", page.slug)]


# --- metrics and charts --------------------------------------------------------------------------


def claim_of_key(key: str) -> str | None:
    """``claims/<paper>/<claim-key>/<name>`` -> ``<paper>/<claim-key>`` (None for other keys)."""
    parts = key.split("/")
    if len(parts) >= 4 and parts[0] == "claims" and all(parts[1:4]):
        return f"{parts[1]}/{parts[2]}"
    return None


def _chart(points: Sequence[tuple[int, float]], title: str) -> str:
    """A small line chart: a polyline of numeric coordinates and an escaped ``<title>``."""
    finite = [(s, v) for s, v in points if math.isfinite(v)]
    if len(finite) > MAX_CHART_POINTS:
        stride = math.ceil(len(finite) / MAX_CHART_POINTS)
        finite = [*finite[::stride], finite[-1]]
    if not finite:
        return '<p class="or-note">No finite values to chart.</p>'
    width, height, pad = 320.0, 120.0, 8.0
    s0, s1 = min(s for s, _ in finite), max(s for s, _ in finite)
    v0, v1 = min(v for _, v in finite), max(v for _, v in finite)

    def xy(step: int, value: float) -> tuple[float, float]:
        x = pad + (width - 2 * pad) * ((step - s0) / (s1 - s0) if s1 > s0 else 0.5)
        y = height - pad - (height - 2 * pad) * ((value - v0) / (v1 - v0) if v1 > v0 else 0.5)
        return x, y

    placed = [xy(s, v) for s, v in finite]
    coords = " ".join(f"{x:.2f},{y:.2f}" for x, y in placed)
    # a dot per point of a short series: a single point draws no line at all
    dots = "".join(
        f'<circle cx="{x:.2f}" cy="{y:.2f}" r="2.5" fill="#1f6feb"/>'
        for x, y in (placed if len(placed) <= MAX_CHART_MARKERS else [])
    )
    return (
        f'<svg class="or-chart" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img">'
        f"<title>{_e(title)}</title>"
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#fafafa" '
        'stroke="#ccc"/>'
        f'<polyline fill="none" stroke="#1f6feb" stroke-width="1.5" points="{coords}"/>'
        f"{dots}</svg>"
        f'<p class="or-note">steps {s0} to {s1}, values {_fmt_number(v0)} to {_fmt_number(v1)}</p>'
    )


def _metrics_table(metrics: Sequence[Metric]) -> str:
    """The first :data:`MAX_TABLE_ROWS` values, and past them each series' last step (the value
    a verdict reads, so that its link always finds its row)."""
    shown = list(metrics[:MAX_TABLE_ROWS])
    if len(metrics) > MAX_TABLE_ROWS:
        last: dict[str, Metric] = {}
        for m in metrics[MAX_TABLE_ROWS:]:
            if m.run not in last or m.step >= last[m.run].step:
                last[m.run] = m
        shown += list(last.values())[:MAX_TABLE_ROWS]
    rows = [
        f'<tr id="{metric_anchor(m.run, m.key, m.step)}"><td>{_e(m.run)}</td><td>{m.step}</td>'
        f"<td>{_e(_fmt_number(m.value))}</td></tr>"
        for m in shown
    ]
    note = (
        f'<p class="or-note">Showing {len(shown)} of {len(metrics)} values (past the first '
        f"{MAX_TABLE_ROWS}, the last step of each series).</p>"
        if len(metrics) > MAX_TABLE_ROWS
        else ""
    )
    head = "<thead><tr><th>run</th><th>step</th><th>value</th></tr></thead>"
    return f'<table class="or-metrics">{head}<tbody>{"".join(rows)}</tbody></table>{note}'


def _group(metrics: Iterable[Metric], key: Callable[[Metric], str]) -> dict[str, list[Metric]]:
    groups: dict[str, list[Metric]] = {}
    for metric in metrics:
        groups.setdefault(key(metric), []).append(metric)
    return groups


def _metrics_html(metrics: Sequence[Metric]) -> str:
    """A table per key, and a chart per (key, run) series."""
    parts: list[str] = []
    for key, of_key in _group(metrics, lambda m: m.key).items():
        ordered = sorted(of_key, key=lambda m: (m.run, m.step))
        parts.append(f'<h4 class="or-key">{_e(key)}</h4>')
        parts.append(_metrics_table(ordered))
        for run, series in _group(ordered, lambda m: m.run).items():
            parts.append(_chart([(m.step, m.value) for m in series], f"{key} ({run})"))
    return "".join(parts)


# --- claims --------------------------------------------------------------------------------------


def _cell_claims(cell: Cell) -> set[str]:
    claims: set[str] = set()
    for key in ("claim", "claims"):
        value = cell.meta.get(key)
        values = value if isinstance(value, list) else [value]
        claims.update(v for v in values if isinstance(v, str))
    return claims


def _claim_runs(
    record: LogbookRecord, claim: str, metrics: Sequence[Metric], finder: RunFinder
) -> list[Run]:
    """Runs that logged the claim's metrics (tied as the judge ties them: by run id, or for a
    Trackio metric by time, see :mod:`openrepro.logbooks.runs`), or that sit on a page that
    concerns the claim."""
    logged = {id(run) for m in metrics if (run := finder.run_of(m)) is not None}
    metric_runs = {m.run for m in metrics}
    pages = {p.slug for p in record.pages if any(claim in _cell_claims(c) for c in p.cells)}
    return [
        r
        for r in record.runs
        if id(r) in logged
        or r.id in metric_runs
        or (r.title and r.title in metric_runs)
        or (r.page and r.page in pages)
    ]


def _claim_html(
    record: LogbookRecord, claim: str, anchors: dict[str, str], finder: RunFinder
) -> str:
    metrics = [m for m in record.metrics if claim_of_key(m.key) == claim]
    runs = _claim_runs(record, claim, metrics, finder)
    parts = [f'<section class="or-claim"><h3>Claim {_e(claim)}</h3>']
    if runs:
        items = "".join(
            f'<li><a href="#{anchors[r.id]}">{_e(run_label(r))}</a> (exit code '
            f"{_e('unknown' if r.exit_code is None else r.exit_code)})</li>"
            for r in runs
        )
        parts.append(f'<p class="or-label">Runs</p><ul>{items}</ul>')
    else:
        parts.append('<p class="or-note">No run concerns this claim.</p>')
    parts.append(_metrics_html(metrics) if metrics else '<p class="or-note">No metrics.</p>')
    parts.append("</section>")
    return "".join(parts)


# --- pages ---------------------------------------------------------------------------------------


@dataclass
class _Context:
    record: LogbookRecord
    file_url: FileUrl
    anchors: dict[str, str]
    shown_runs: set[str] = field(default_factory=set)


def _files_cell(ctx: _Context, page: Page, cell: Cell) -> str:
    refs, unknown = _cell_files(ctx.record, page, cell)
    parts = [_figure(ctx.record, ref, ctx.file_url) for ref in refs]
    parts.extend(f'<p class="or-file">{_e(path)}{_NOT_OWN}</p>' for path in unknown)
    if cell.body.strip():
        parts.append(_testimony(render_markdown(cell.body, images=False)))
    return "".join(parts) or '<p class="or-note">No file.</p>'


def _code_cell(ctx: _Context, page: Page, cell: Cell) -> str:
    runs = _cell_runs(ctx.record, page, cell)
    parts: list[str] = []
    for run in runs:
        if run.id not in ctx.shown_runs:
            ctx.shown_runs.add(run.id)
            parts.append(_run_html(run, ctx.anchors[run.id], ctx.record, ctx.file_url))
    if not runs and cell.body.strip():
        parts.append('<p class="or-note">No recorded run for this cell; its text:</p>')
        parts.append(_pre(cell.body, MAX_OUTPUT_CHARS))
    return "".join(parts)


def _cell_html(ctx: _Context, page: Page, cell: Cell) -> str:
    if cell.type == "code":
        body = _code_cell(ctx, page, cell)
    elif cell.type in ("figure", "artifact"):
        body = _files_cell(ctx, page, cell)
    else:  # markdown, dashboard
        body = _testimony(render_markdown(cell.body))
    title = f"<h3>{_e(cell.title)}</h3>" if cell.title else ""
    return f'<div class="or-cell or-{_e(cell.type)}">{title}{body}</div>'


def _page_html(ctx: _Context, page: Page) -> str:
    cells = "".join(_cell_html(ctx, page, cell) for cell in page.cells)
    rest = [r for r in ctx.record.runs if r.page == page.slug and r.id not in ctx.shown_runs]
    for run in rest:
        ctx.shown_runs.add(run.id)
    runs = "".join(_run_html(r, ctx.anchors[r.id], ctx.record, ctx.file_url) for r in rest)
    return f'<section class="or-page"><h2>{_e(page.title or page.slug)}</h2>{cells}{runs}</section>'


def _other_runs_html(ctx: _Context) -> str:
    rest = [r for r in ctx.record.runs if r.id not in ctx.shown_runs]
    if not rest:
        return ""
    runs = "".join(_run_html(r, ctx.anchors[r.id], ctx.record, ctx.file_url) for r in rest)
    return f'<section class="or-page"><h2>Other runs</h2>{runs}</section>'


def _other_metrics_html(record: LogbookRecord) -> str:
    claims = set(record.claims)
    rest = [m for m in record.metrics if claim_of_key(m.key) not in claims]
    if not rest:
        return ""
    return f'<section class="or-page"><h2>Other metrics</h2>{_metrics_html(rest)}</section>'


# --- document ------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#1b1b1b;line-height:1.5}
pre{background:#f6f8fa;padding:.6rem;overflow:auto;white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem}
img{max-width:100%}
.or-testimony{border-left:4px solid #d4a72c;background:#fffbea;padding:.2rem .8rem;margin:.5rem 0}
.or-label{font-weight:600;font-size:.85rem;color:#555;margin:.4rem 0 .1rem}
.or-bad{color:#b00020;font-weight:700}.or-ok{color:#1a7f37;font-weight:700}
.or-note,.or-hash{color:#666;font-size:.85rem}
.or-run{border:1px solid #ddd;border-radius:4px;padding:.2rem .8rem;margin:.6rem 0}
.or-claim{border:1px solid #9ec5fe;border-radius:4px;padding:.2rem .8rem;margin:.6rem 0}
.or-cell{margin:1rem 0}.or-chart{display:block}
"""


def _header(record: LogbookRecord, participant: str | None) -> str:
    title = record.title or "Untitled logbook"
    rows = [
        ("Paper", record.paper_id or "unknown"),
        ("Participant", participant or record.participant or "unknown"),
        ("Format", f"{record.format} {record.format_version}"),
        ("Revision", record.revision()),
    ]
    items = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in rows)
    return f"<header><h1>{_e(title)}</h1><dl>{items}</dl></header>"


def _loose_testimony_html(record: LogbookRecord) -> str:
    """Statements not tied to a page (a bundle's write-up)."""
    paged = {page.slug for page in record.pages}
    parts = [_testimony(render_markdown(t.text)) for t in record.testimony if t.page not in paged]
    return f'<section class="or-page"><h2>Write-up</h2>{"".join(parts)}</section>' if parts else ""


def _loose_artifacts_html(record: LogbookRecord, file_url: FileUrl) -> str:
    """Files presented outside any page (a bundle's artifacts)."""
    paged = {page.slug for page in record.pages}
    parts = [_figure(record, a.file, file_url) for a in record.artifacts if a.page not in paged]
    return f'<section class="or-page"><h2>Files</h2>{"".join(parts)}</section>' if parts else ""


def render_logbook(
    record: LogbookRecord, *, file_url: FileUrl, participant: str | None = None
) -> str:
    """A complete, self-contained HTML document for one logbook.

    ``file_url`` maps a file of the logbook to the URL the board serves it at (or None); only
    those files with a raster image extension are shown as images. ``participant`` is who
    submitted it as the store knows them (a Trackio logbook names nobody), shown in the header.
    """
    ctx = _Context(record=record, file_url=file_url, anchors=_run_anchors(record.runs))
    finder = RunFinder(record)
    claims = "".join(_claim_html(record, claim, ctx.anchors, finder) for claim in record.claims)
    claims_html = f'<section class="or-claims"><h2>Claims</h2>{claims}</section>' if claims else ""
    pages = "".join(_page_html(ctx, page) for page in record.pages)
    body = (
        _header(record, participant)
        + claims_html
        + pages
        + _loose_testimony_html(record)
        + _loose_artifacts_html(record, file_url)
        + _other_runs_html(ctx)
        + _other_metrics_html(record)
    )
    body = public_text(body)  # control sequences and home folders, wherever they were shown
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{_e(public_text(record.title or 'Logbook'))}</title><style>{_CSS}</style></head>"
        f"<body>{body}</body></html>\n"
    )
