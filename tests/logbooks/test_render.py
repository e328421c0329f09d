"""The board's logbook rendering neutralises hostile participant content."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from openrepro.logbooks import render
from openrepro.logbooks.records import (
    Artifact,
    Cell,
    FileRef,
    LogbookRecord,
    Metric,
    Page,
    Run,
)
from openrepro.logbooks.render import is_safe_url, render_logbook, render_markdown

BAD_SCHEMES = {"javascript", "data", "vbscript", "file"}
BAD_TAGS = {"script", "iframe", "object", "embed", "svg", "style", "math", "form", "base", "link"}
INVISIBLE = re.compile(r"[\x00-\x20\x7f-\x9f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](java&#115;cript:alert(1))",
    "[x](&#x6A;avascript:alert(1))",
    "[x](java%0ascript:alert(1))",
    "[x](<java\tscript:alert(1)>)",
    "[x](\x01javascript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](data:image/svg+xml;base64,PHN2Zz4=)",
    "[x](vbscript:msgbox(1))",
    "[x](file:///etc/passwd)",
    "[x][ref]\n\n[ref]: javascript:alert(1)",
    '<iframe src="https://evil.example"></iframe>',
    '<a href="javascript:alert(1)">x</a>',
    "<svg onload=alert(1)><circle r=1 /></svg>",
    "<javascript:alert(1)>",
    "<JAVASCRIPT:alert(1)>",
    '<p style="background:url(javascript:alert(1))">styled</p>',
    '<span style="position:fixed">x</span>',
    "<object data=x></object><embed src=x>",
    "```\n</code></pre><script>alert(1)</script>\n```",
]


class _Collector(HTMLParser):
    """Every start tag with its attributes, and the text inside ``<svg>`` elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)


def _tags(document: str) -> list[tuple[str, dict[str, str]]]:
    parser = _Collector()
    parser.feed(document)
    parser.close()
    return parser.tags


def _scheme(url: str) -> str:
    text = INVISIBLE.sub("", html.unescape(url)).lower()
    match = re.match(r"([^/?#]*?):", text)
    return match.group(1) if match else ""


def _assert_inert(document: str, *, own_svg: bool = False) -> None:
    for tag, attrs in _tags(document):
        if tag == "svg" and own_svg:
            assert attrs.get("class") == "or-chart"
        else:
            assert tag not in BAD_TAGS, (tag, attrs)
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert name != "style", (tag, name)
            if name in {"href", "src", "action", "formaction", "xlink:href", "srcset"}:
                assert _scheme(value) not in BAD_SCHEMES, (tag, name, value)


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_markdown_is_inert(text: str) -> None:
    _assert_inert(render_markdown(text))
    _assert_inert(render_markdown(text, images=False))


def test_all_hostile_markdown_together_is_inert() -> None:
    _assert_inert(render_markdown("\n\n".join(HOSTILE)))


def test_sanitiser_catches_a_markdown_bypass(monkeypatch: pytest.MonkeyPatch) -> None:
    # Even a parser that passes raw HTML and any link through is cleaned by nh3.
    unsafe = MarkdownIt("commonmark", {"html": True})
    unsafe.validateLink = lambda url: True  # type: ignore[method-assign]
    monkeypatch.setattr(render, "_MD", unsafe)
    out = render_markdown("\n\n".join(HOSTILE))
    assert "<script" in unsafe.render(HOSTILE[0])  # the bypass is real
    _assert_inert(out)


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        " JaVaScRiPt:alert(1)",
        "java\nscript:alert(1)",
        "java%09script:alert(1)",
        "java&#115;cript:alert(1)",
        "&#106;avascript:alert(1)",
        "java\u200bscript:alert(1)",
        "data:text/html,x",
        "vbscript:x",
        "FILE:///etc/passwd",
        "%6A%61vascript:alert(1)",
    ],
)
def test_unsafe_urls(url: str) -> None:
    assert not is_safe_url(url)


@pytest.mark.parametrize(
    "url", ["https://a.example/x", "http://a.example", "mailto:a@b.c", "fig/a.png", "#top", "./a:b"]
)
def test_safe_urls(url: str) -> None:
    assert is_safe_url(url)


def test_normal_markdown_still_renders() -> None:
    text = (
        "# Title\n\n## Sub\n\n*em* **strong** ~~gone~~ `inline`\n\n"
        "| a | b |\n|---|--:|\n| 1 | 2 |\n\n"
        "```python\nprint('x < 1')\n```\n\n"
        "> quoted\n\n- one\n- two\n\n[paper](https://arxiv.org/abs/1234) "
        "[mail](mailto:a@b.c) [rel](results/table.md)\n\n![plot](fig/loss.png)"
    )
    out = render_markdown(text)
    for fragment in [
        "<h1>Title</h1>",
        "<h2>Sub</h2>",
        "<em>em</em>",
        "<strong>strong</strong>",
        "<del>gone</del>",
        "<code>inline</code>",
        "<table>",
        "<td>2</td>",
        "<code class=\"language-python\">print('x &lt; 1')",
        "<blockquote>",
        "<li>one</li>",
        'href="https://arxiv.org/abs/1234"',
        'rel="nofollow noopener noreferrer"',
        'href="mailto:a@b.c"',
        'href="results/table.md"',
        '<img src="fig/loss.png" alt="plot">',
    ]:
        assert fragment in out, fragment
    _assert_inert(out)


def test_code_class_only_language() -> None:
    out = render_markdown("```or-bad onclick=x\ncode\n```")
    assert [a for t, a in _tags(out) if t == "code"] == [{"class": "language-or-bad"}]
    assert "onclick" not in out


# --- whole logbooks -----------------------------------------------------------------------------

PNG = FileRef(path="figs/loss.png", sha256="a" * 64, size=10)
SVG = FileRef(path="figs/evil.svg", sha256="b" * 64, size=10)
OUTSIDE = FileRef(path="figs/other.png", sha256="c" * 64, size=10)  # not in record.files


def _file_url(ref: FileRef) -> str | None:
    return f"/files/{ref.sha256}/{ref.path}"


def _record() -> LogbookRecord:
    hostile = "\n\n".join(HOSTILE)
    return LogbookRecord(
        format="trackio",
        format_version="1",
        title="<script>alert('title')</script>",
        paper_id="abc<img src=x onerror=1>",
        participant='mallory"><svg onload=alert(1)>',
        claims=["abc/C1", "abc/C2"],
        pages=[
            Page(
                slug="main",
                title="Main <b>page</b>",
                cells=[
                    Cell(id="m1", type="markdown", page="main", body=hostile),
                    Cell(id="r1", type="code", page="main", title="train"),
                    Cell(
                        id="f1", type="figure", page="main", body="![x](https://evil.example/x.png)"
                    ),
                    Cell(id="f2", type="figure", page="main", meta={"path": SVG.path}),
                    Cell(
                        id="f3",
                        type="figure",
                        page="main",
                        meta={"src": "https://evil.example/y.png"},
                    ),
                    Cell(id="f4", type="artifact", page="main"),
                    Cell(id="d1", type="dashboard", page="main", body="<iframe src=x></iframe>"),
                ],
            ),
            Page(
                slug="c2",
                title="Claim 2",
                cells=[Cell(id="r2", type="code", page="c2", meta={"claim": "abc/C2"})],
            ),
        ],
        runs=[
            Run(
                id="r1",
                page="main",
                title="train<script>",
                command=["python", "train.py", "--x=</pre><script>alert(1)</script>"],
                exit_code=0,
                duration_s=12.5,
                output="epoch 1\n</pre><script>alert(1)</script>\n" + "y" * 50_000,
                scripts={"train.py<svg onload=1>": "print('</pre><script>')"},
                produced=[PNG],
            ),
            Run(id="r2", page="c2", command=["bash", "eval.sh"], exit_code=3, output="boom"),
        ],
        metrics=[
            Metric(run="r1", key="claims/abc/C1/accuracy", step=s, value=0.5 + s / 10)
            for s in range(5)
        ]
        + [
            Metric(run="r1", key="claims/abc/C1/<script>loss", step=0, value=float("nan")),
            Metric(run="r1", key="train/loss", step=0, value=1.0),
        ],
        artifacts=[
            Artifact(file=PNG, page="main", cell="f4", kind="figure"),
            Artifact(file=SVG, page="main", cell="f4", kind="figure"),
            Artifact(file=OUTSIDE, page="main", cell="f4", kind="figure"),
        ],
        files=[PNG, SVG],
    )


@pytest.fixture(scope="module")
def document() -> str:
    return render_logbook(_record(), file_url=_file_url)


def test_logbook_is_inert(document: str) -> None:
    head, body = document.split("</head>", 1)
    assert [t for t, _ in _tags(head)] == ["html", "head", "meta", "meta", "meta", "title", "style"]
    _assert_inert(body, own_svg=True)
    assert "<script" not in document.lower().replace("&lt;script", "")


def test_logbook_is_self_contained(document: str) -> None:
    assert document.startswith("<!DOCTYPE html>")
    assert (
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "img-src 'self' data:; style-src 'unsafe-inline'\">" in document
    )
    tags = _tags(document)
    assert ("link", {}) not in tags and not any(t == "link" for t, _ in tags)
    srcs = [a["src"] for t, a in tags if t == "img"]
    assert srcs == [f"/files/{PNG.sha256}/{PNG.path}"]  # only the logbook's own raster image


def test_header_escaped(document: str) -> None:
    assert "&lt;script&gt;alert(&#x27;title&#x27;)&lt;/script&gt;" in document
    assert "mallory&quot;&gt;&lt;svg onload=alert(1)&gt;" in document


def test_testimony_labelled(document: str) -> None:
    assert document.count("Testimony (participant's own words, not evidence)") >= 2


def test_run_output_stays_escaped(document: str) -> None:
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in document
    assert "</pre><script>" not in document
    assert "Truncated: showing the first 20,000 of" in document
    assert "y" * 50_000 not in document
    assert "python train.py" in document
    assert "12.5 s" in document
    assert "train.py&lt;svg onload=1&gt;" in document


def test_failed_exit_code_highlighted(document: str) -> None:
    assert 'exit code <span class="or-bad">3</span>' in document
    assert 'exit code <span class="or-ok">0</span>' in document


def test_svg_figure_not_an_image(document: str) -> None:
    imgs = [a for t, a in _tags(document) if t == "img"]
    assert all(not a["src"].endswith(".svg") for a in imgs)
    assert f'href="/files/{SVG.sha256}/{SVG.path}"' in document  # a link instead
    assert SVG.sha256 in document


def test_external_images_not_rendered_in_figures(document: str) -> None:
    imgs = [a["src"] for t, a in _tags(document) if t == "img"]
    assert not any("evil.example" in src for src in imgs)
    assert not any(OUTSIDE.path in src for src in imgs)
    assert "https://evil.example/y.png" in document  # shown as text
    assert "(not a file of this logbook)" in document


def test_claim_section_lists_metrics_and_chart(document: str) -> None:
    claims = document.split('<section class="or-claims">', 1)[1].split('<section class="or-page">')[
        0
    ]
    c1, c2 = claims.split("<h3>Claim abc/C2</h3>")
    assert "<h3>Claim abc/C1</h3>" in c1
    assert "claims/abc/C1/accuracy" in c1
    assert "claims/abc/C1/&lt;script&gt;loss" in c1
    assert "<td>0.9</td>" in c1
    assert f'href="#{render.run_anchor("r1")}"' in c1  # run r1 logged the claim's metrics
    chart = re.search(r'<svg class="or-chart"[^>]*>.*?</svg>', c1, re.S)
    assert chart is not None
    assert "<polyline" in chart.group(0)
    points = re.search(r'points="([^"]*)"', chart.group(0))
    assert points is not None
    assert re.fullmatch(r"[0-9., -]+", points.group(1))
    assert "train/loss" not in claims
    # claim C2 has no metrics but a page whose cell names it, with run r2
    assert f'href="#{render.run_anchor("r2")}"' in c2
    assert "No metrics." in c2
    assert "train/loss" in document  # in "Other metrics"


def test_chart_title_escaped() -> None:
    out = render._chart([(0, 1.0), (1, 2.0)], "</title><script>x</script>")
    assert "<title>&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;</title>" in out


# --- what a first look at the board's logbook page found -------------------------------------


def _trackio_record() -> LogbookRecord:
    """A Trackio-shaped record: the run cell's title as Trackio writes it ("Run: <command>"), a
    metric named by its *Trackio* run ("seed0", no run cell id) logged once during the run."""
    return LogbookRecord(
        format="trackio",
        format_version="2",
        claims=["p1/C1"],
        pages=[Page(slug="p1-c1", title="C1", cells=[Cell(id="c-run", type="code", page="p1-c1")])],
        runs=[
            Run(
                id="c-run",
                page="p1-c1",
                title="Run: python train.py",
                exit_code=0,
                command=["python", "train.py"],
                duration_s=10.0,
                created_at="2026-03-01T10:00:10+00:00",
            )
        ],
        metrics=[
            Metric(
                run="seed0",
                key="claims/p1/C1/accuracy",
                step=0,
                value=95.1,
                timestamp="2026-03-01T10:00:05+00:00",
                source="trackio-db",
            )
        ],
    )


def test_the_header_names_the_participant_the_store_knows() -> None:
    record = _trackio_record()  # a Trackio logbook names nobody
    assert "<dt>Participant</dt><dd>unknown</dd>" in render_logbook(record, file_url=_file_url)
    page = render_logbook(record, file_url=_file_url, participant="alice")
    assert "<dt>Participant</dt><dd>alice</dd>" in page


def test_a_trackio_metric_ties_to_the_run_it_was_logged_in() -> None:
    page = render_logbook(_trackio_record(), file_url=_file_url)
    claim = page.split('<section class="or-claim">', 1)[1].split("</section>", 1)[0]
    assert "No run concerns this claim." not in claim
    assert f'href="#{render.run_anchor("c-run")}"' in claim
    assert f'id="{render.metric_anchor("seed0", "claims/p1/C1/accuracy", 0)}"' in claim


def test_a_run_titled_run_is_not_called_run_run() -> None:
    page = render_logbook(_trackio_record(), file_url=_file_url)
    assert "<h4>Run: python train.py</h4>" in page and "Run Run" not in page
    assert render.run_label(Run(id="r9", title="train", command=[])) == "Run train"


def test_a_one_point_series_draws_its_point() -> None:
    chart = render._chart([(0, 95.1)], "accuracy (seed0)")
    assert chart.count("<circle") == 1
    assert "<circle" not in render._chart([(s, float(s)) for s in range(200)], "long")


def test_a_long_series_keeps_the_row_of_its_last_step() -> None:
    """A verdict reads a series' last step and links its row: the table keeps it past its cap."""
    metrics = [
        Metric(run=run, key="claims/p1/C1/loss", step=s, value=1 / (s + 1))
        for run in ("a", "b")
        for s in range(render.MAX_TABLE_ROWS + 50)
    ]
    table = render._metrics_table(metrics)
    assert (
        f'id="{render.metric_anchor("a", "claims/p1/C1/loss", render.MAX_TABLE_ROWS + 49)}"'
        in table
    )
    assert (
        f'id="{render.metric_anchor("b", "claims/p1/C1/loss", render.MAX_TABLE_ROWS + 49)}"'
        in table
    )
    assert f'id="{render.metric_anchor("b", "claims/p1/C1/loss", 3)}"' not in table
    assert table.count("<tr id=") == render.MAX_TABLE_ROWS + 2


def test_colour_codes_and_home_folders_are_not_published() -> None:
    """Trackio keeps a run's output with its terminal colours, and commands and tracebacks
    name the participant's home folder: the page shows neither."""
    record = _trackio_record()
    run = record.runs[0]
    run.command = ["python", "/home/alice/repro/train.py", "--out", "C:\\Users\\Alice\\out"]
    run.output = (
        "\x1b[1m\x1b[32mepoch 1\x1b[0m loss 0.5\n"
        'File "/Users/bob/miniconda3/lib/python3.11/site.py", line 3\n'
        "saved to /root/cache/x.bin; see https://example.org/home/docs\n"
    )
    page = render_logbook(record, file_url=_file_url)
    assert "\x1b" not in page and "[32m" not in page and "epoch 1 loss 0.5" in page
    for private in ("alice", "Alice", "bob", "/root/"):
        assert private not in page, private
    assert "~/repro/train.py" in page and "~/miniconda3/lib" in page and "~/cache/x.bin" in page
    assert "https://example.org/home/docs" in page  # a URL's path is not a home folder
