"""The `html` extractor: reference golden cases, our divergences, fixtures and the real corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples
from textual_kinds import (
    GOLDEN,
    Case,
    assert_invariants,
    assert_lists_match_golden,
    golden,
    manifest_paths,
    outcome,
)

from indexer import Options, extract
from indexer.formats import html
from indexer.formats.html.mdsyntax import (
    Block,
    code_block,
    inline_span,
    link_target,
    paragraphs,
    split_block,
)
from indexer.formats.html.source import (
    DEPTH_LIMIT,
    declared_charset,
    decode_ascii_html,
    decode_html,
    segment_bound,
    tag_depth,
    too_deep,
)
from indexer.registry import default_registry

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "html"
OPTIONS = Options(html_main_content=False)
"""Whole-page rendering: these tests check extractors-v1's renderer (main content has
its own tests, tests/formats/test_html_main.py)."""


def chunks_of(source: str, options: Options = OPTIONS) -> list[tuple[str, list[str]]]:
    """Return (text, heading path) of each chunk the html chunker makes of `source`."""
    return [(c.text, c.meta["headings"]) for c in html.chunk(source, options).chunks]


# Golden cases of kind html, (name, path, input, text, chunks): first those where
# we agree with the reference, then those where it is wrong and we do better
# (each one explained in docs/compat.md (`html`)).
AGREED: list[Case] = [
    ("dispatch_htm", "p.HTM", "<p>x</p>", "x", ["x"]),
    ("dispatch_xhtml", "p.xhtml", "<p>x</p>", "x", ["x"]),
    ("dispatch_empty_html", "n.html", "", "", []),
    ("html_basic", "p.html", "<h1>Title</h1><p>Body</p>", "# Title\n\nBody", ["# Title", "Body"]),
    (
        "html_full_doc",
        "p.html",
        "<!DOCTYPE html><html><head><title>T &amp; U</title><style>p{}</style></head><body><h2>"
        "Sec</h2><p>One <b>bold</b> and <i>it</i>.</p><p>Two</p></body></html>",
        "## Sec\n\nOne bold and it.\n\nTwo",
        ["## Sec", "One bold and it.", "Two"],
    ),
    (
        "html_main_pref",
        "p.html",
        "<body><nav><a href=/x>menu</a></nav><main><p>Core content</p></main><footer>foot</foot"
        "er></body>",
        "Core content",
        ["Core content"],
    ),
    (
        "html_nav_no_main",
        "p.html",
        "<body><nav><a href=/x>menu</a></nav><p>Core</p><footer>foot</footer></body>",
        "[menu](/x)\n\nCore\n\nfoot",
        ["[menu](/x)", "Core", "foot"],
    ),
    (
        "html_entity_far_semicolon",
        "p.html",
        "<p>AT&T rocks; yes</p>",
        "AT&T rocks; yes",
        ["AT&T rocks; yes"],
    ),
    (
        "html_br_hr",
        "p.html",
        "<p>line1<br>line2<br/>line3</p><hr><p>after</p>",
        "line1\nline2\nline3\n\n---\n\nafter",
        ["line1\nline2\nline3", "---", "after"],
    ),
    ("html_main_unclosed", "p.html", "<body><main><p>in main</p></body>", "in main", ["in main"]),
    (
        "html_comments",
        "p.html",
        "<p>a<!-- hidden -->b</p><!-- unterminated <p>lost</p>",
        "ab",
        ["ab"],
    ),
    (
        "html_pre_code",
        "p.html",
        "<pre><code>fn main() {\n    x &lt; 1;\n}</code></pre><p>and <code>inline</code> code</p>",
        "```\nfn main() {\n    x < 1;\n}\n```\n\nand `inline` code",
        ["```\nfn main() {\n    x < 1;\n}\n```", "and `inline` code"],
    ),
    (
        "html_anchor_variants",
        "p.html",
        '<p><a href="#frag">frag</a> <a>nohref</a> <a href="javascript:void(0)">js</a> <a href='
        '\'/rel\'>rel</a> <a href="">empty</a> <A HREF="/UP">up</A></p>',
        "frag nohref js [rel](/rel) empty [up](/UP)",
        ["frag nohref js [rel](/rel) empty [up](/UP)"],
    ),
    (
        "html_headings",
        "p.html",
        "<h1>A</h1><h3>C</h3><h6>F</h6><h7>G</h7>",
        "# A\n\n### C\n\n###### F\n\nG",
        ["# A", "### C", "###### F", "G"],
    ),
    ("html_table_no_rows", "p.html", "<table></table><p>x</p>", "x", ["x"]),
    ("html_whitespace_only", "p.html", "   \n\t ", "", []),
    (
        "html_text_only",
        "p.html",
        "plain text\n\nno tags",
        "plain text no tags",
        ["plain text no tags"],
    ),
    (
        "html_uppercase_tags",
        "p.html",
        "<BODY><P>Upper</P><DIV>Div</DIV></BODY>",
        "Upper\n\nDiv",
        ["Upper", "Div"],
    ),
    ("html_crlf", "p.html", "<p>a\r\nb</p>\r\n<p>c</p>", "a b\n\nc", ["a b", "c"]),
    ("html_stray_tr", "p.html", "<p>x</p><tr>y", "x\n\ny", ["x", "y"]),
    ("html_dl", "p.html", "<dl><dt>term</dt><dd>def</dd></dl>", "term\n\ndef", ["term", "def"]),
    (
        "html_span_spaces",
        "p.html",
        "<p><span>a</span><span>b</span> <span>c</span></p>",
        "ab c",
        ["ab c"],
    ),
    ("html_inline_only", "p.html", "<b>bold</b> text", "bold text", ["bold text"]),
    (
        "html_noscript_svg",
        "p.html",
        "<p>x</p><noscript>ns</noscript><svg><text>s</text></svg><p>y</p>",
        "x\n\ny",
        ["x", "y"],
    ),
    ("html_self_closing_script", "p.html", "<script/><p>after</p>", "after", ["after"]),
    (
        "html_many_blank_paras",
        "p.html",
        "<p></p><p> </p><div><div>deep</div></div>",
        "deep",
        ["deep"],
    ),
    (
        "html_head_only_text",
        "p.html",
        "<head><title>t</title></head>visible",
        "visible",
        ["visible"],
    ),
    ("html_lone_lt", "p.html", "<", "<", ["<"]),
    ("html_attr_gt_in_quotes", "p.html", '<p title="a>b">text</p>', "text", ["text"]),
    (
        "html_details",
        "p.html",
        "<details><summary>Sum</summary>Body</details>",
        "Sum\n\nBody",
        ["Sum", "Body"],
    ),
    (
        "html_inline_link",
        "p.html",
        '<p>Hello <a href="x">link</a> world</p>',
        "Hello [link](x) world",
        ["Hello [link](x) world"],
    ),
    (
        "html_link_in_heading",
        "p.html",
        '<h1><a href="/">Home</a></h1><p>t</p>',
        "# [Home](/)\n\nt",
        ["# [Home](/)", "t"],
    ),
    (
        "html_anchor_block",
        "p.html",
        '<a href="x"><div>Card</div></a><p>next</p>',
        "[Card](x)\n\nnext",
        ["[Card](x)", "next"],
    ),
    ("html_img_link", "p.html", '<a href="x"><img src="i.png"></a><p>n</p>', "n", ["n"]),
    (
        "html_code_in_anchor",
        "p.html",
        '<a href="u"><code>fn</code></a>',
        "[`fn`](u)",
        ["[`fn`](u)"],
    ),
    (
        "html_whitespace_between_blocks",
        "p.html",
        "<div>\n  <p>one</p>\n  <p>two</p>\n</div>",
        "one\n\ntwo",
        ["one", "two"],
    ),
    (
        "html_thead_no_th",
        "p.html",
        "<table><thead><tr><td>H1</td><td>H2</td></tr></thead><tr><td>1</td><td>2</td></tr></ta"
        "ble>",
        "| H1 | H2 |\n| --- | --- |\n| 1 | 2 |",
        ["| H1 | H2 |\n| --- | --- |\n| 1 | 2 |"],
    ),
    ("html_body_attr", "p.html", '<body class="x"><p>b</p></body>', "b", ["b"]),
    (
        "html_main_attr",
        "p.html",
        "<html><body><MAIN id=m><p>m</p></MAIN><p>out</p></body></html>",
        "m",
        ["m"],
    ),
]
DIVERGED: list[Case] = [
    (
        "html_link_in_cell",
        "p.html",
        '<body><table><tr><th>name</th><th>url</th></tr><tr><td>a|b</td><td><a href="https://x.'
        'com/p">site</a></td></tr></table></body>',
        "| name | url |\n| --- | --- |\n| a\\|b | [site](https://x.com/p) |",
        ["| name | url |\n| --- | --- |\n| a\\|b | [site](https://x.com/p) |"],
    ),
    (
        "html_lists_nested",
        "p.html",
        "<ul><li>one<ul><li>inner</li></ul></li><li>two</li></ul><ol><li>a</li><li>b</li></ol>",
        "- one\n  - inner\n- two\n\n1. a\n2. b",
        ["- one\n  - inner\n- two", "1. a\n2. b"],
    ),
    (
        "html_blockquote_then_text",
        "p.html",
        "<blockquote>quoted</blockquote>after<p>p</p>",
        "> quoted\n\nafter\n\np",
        ["> quoted", "after", "p"],
    ),
    (
        "html_entities",
        "p.html",
        "<p>a&nbsp;b &amp;lt; &AMP; &#xZZ; &#128512; &#x41; &copy; &unknown; & alone</p>",
        "a b &lt; & &#xZZ; 😀 A © &unknown; & alone",
        ["a b &lt; & &#xZZ; 😀 A © &unknown; & alone"],
    ),
    (
        "html_title_only",
        "p.html",
        "<html><head><title>Only title</title></head></html>",
        "Only title",
        ["Only title"],
    ),
    ("html_no_body_title_visible", "p.html", "<title>Loose</title><p>x</p>", "x", ["x"]),
    (
        "html_mainframe",
        "p.html",
        "<mainframe>x</mainframe><body><p>body text</p></body>",
        "x\n\nbody text",
        ["x", "body text"],
    ),
    (
        "html_less_than",
        "p.html",
        "<p>a < b > c</p><p>1 < 2</p>",
        "a < b > c\n\n1 < 2",
        ["a < b > c", "1 < 2"],
    ),
    (
        "html_img_alt",
        "p.html",
        '<p>see <img src="a.png" alt="ALT"> image</p>',
        "see ALT image",
        ["see ALT image"],
    ),
    (
        "html_td_unclosed",
        "p.html",
        "<table><tr><td>a<td>b</tr><tr><td>c</td></tr></table>",
        "| a | b |\n| --- | --- |\n| c |  |",
        ["| a | b |\n| --- | --- |\n| c |  |"],
    ),
    (
        "html_table_th_later",
        "p.html",
        "<table><tr><td>1</td></tr><tr><th>H</th></tr></table>",
        "| 1 |\n| --- |\n| H |",
        ["| 1 |\n| --- |\n| H |"],
    ),
    (
        "html_nested_table",
        "p.html",
        "<table><tr><td>outer<table><tr><td>in1</td><td>in2</td></tr></table></td></tr></table>",
        "outer\n\n| in1 | in2 |\n| --- | --- |",
        ["outer", "| in1 | in2 |\n| --- | --- |"],
    ),
    (
        "html_script_with_tags",
        "p.html",
        "<body><script>if(a<b){document.write('</div><p>x</p>')}</script><p>after</p></body>",
        "after",
        ["after"],
    ),
    (
        "html_pre_blank_lines",
        "p.html",
        "<pre>a\n\n\n\nb</pre>",
        "```\na\n\n\n\nb\n```",
        ["```\na\n\n\n\nb\n```"],
    ),
    (
        "html_pre_fence_inner",
        "p.html",
        "<pre>```\ncode\n```</pre><p>after</p>",
        "````\n```\ncode\n```\n````\n\nafter",
        ["````\n```\ncode\n```\n````", "after"],
    ),
    ("html_empty_tag", "p.html", "<>text", "<>text", ["<>text"]),
    (
        "html_li_with_p",
        "p.html",
        "<ul><li><p>para in li</p></li><li>plain</li></ul>",
        "- para in li\n- plain",
        ["- para in li\n- plain"],
    ),
    (
        "html_br_in_cell",
        "p.html",
        "<table><tr><td>a<br>b</td><td>c</td></tr></table>",
        "| a b | c |\n| --- | --- |",
        ["| a b | c |\n| --- | --- |"],
    ),
    (
        "html_nested_anchor",
        "p.html",
        '<a href="1">one <a href="2">two</a> three</a>',
        "[one](1) [two](2) three",
        ["[one](1) [two](2) three"],
    ),
    (
        "html_ol_li_numbering_nested",
        "p.html",
        "<ol><li>a</li><li>b<ol><li>x</li></ol></li><li>c</li></ol>",
        "1. a\n2. b\n   1. x\n3. c",
        ["1. a\n2. b\n   1. x\n3. c"],
    ),
    (
        "html_text_inside_table_outside_cells",
        "p.html",
        "<table>junk<tr><td>a</td></tr></table>",
        "junk\n\na",
        ["junk", "a"],
    ),
    (
        "html_pre_in_li",
        "p.html",
        "<ul><li>x<pre>code</pre></li></ul>",
        "- x\n  ```\n  code\n  ```",
        ["- x\n  ```\n  code\n  ```"],
    ),
    (
        "html_blockquote_p",
        "p.html",
        "<blockquote><p>q1</p><p>q2</p></blockquote>",
        "> q1\n>\n> q2",
        ["> q1\n>\n> q2"],
    ),
    (
        "html_entity_in_attr_href",
        "p.html",
        '<a href="/a?x=1&amp;y=2">q</a>',
        "[q](/a?x=1&y=2)",
        ["[q](/a?x=1&y=2)"],
    ),
    (
        "html_heading_trailing_space",
        "p.html",
        "<h2>  Spaced   title  </h2>",
        "## Spaced title",
        ["## Spaced title"],
    ),
]


@pytest.mark.parametrize(("name", "path", "source", "text", "chunks"), AGREED + DIVERGED)
def test_golden_case(name: str, path: str, source: str, text: str, chunks: list[str]) -> None:
    assert outcome(path, source, OPTIONS) == (text, chunks)


def test_case_lists_are_every_html_golden_case_as_the_reference_has_it() -> None:
    if not GOLDEN.exists():
        pytest.skip("../shared/reference is not available")
    assert len(golden("html")) == 64
    assert {case[0] for case in AGREED + DIVERGED} == set(golden("html"))
    assert_lists_match_golden("html", AGREED, DIVERGED)


def test_golden_cases_degrade_only_where_nothing_visible_is_parsed() -> None:
    results = {
        name: extract(path, source.encode(), OPTIONS)
        for name, path, source, *_ in AGREED + DIVERGED
    }
    assert {r.kind for r in results.values()} == {"html"}
    degraded = {name for name, r in results.items() if r.degraded}
    assert degraded == {"html_title_only", "html_self_closing_script"}
    assert results["html_full_doc"].metadata == {"title": "T & U"}
    assert results["html_no_body_title_visible"].metadata == {"title": "Loose"}
    assert results["html_title_only"].metadata == {"title": "Only title"}
    assert results["html_basic"].metadata == {}


# The reference's registry_chunkers["html"] outputs: its text-to-chunks form.
REGISTRY_CHUNKS = [
    ("", []),
    ("single line", ["single line"]),
    ("a\n\n\n\nb  \n", ["a b"]),
    ("para one\n\npara two\n\n\npara three", ["para one para two para three"]),
    ("mültibyte ä ö ü 漢字 \n\n end", ["mültibyte ä ö ü 漢字 end"]),
    ("hello world", ["hello world"]),
    ("  \n\t \n", []),
]


@pytest.mark.parametrize(("source", "chunks"), REGISTRY_CHUNKS)
def test_registry_chunker_matches_the_reference(source: str, chunks: list[str]) -> None:
    chunker = default_registry().get("html").chunker
    assert chunker is not None
    assert [c.text for c in chunker(source, OPTIONS).chunks] == chunks


def test_registry_chunk_cases_are_the_references() -> None:
    if not GOLDEN.exists():
        pytest.skip("../shared/reference is not available")
    cases = json.loads(GOLDEN.read_text())["cases"]
    expected = [
        (c["input"], c["registry_chunkers"]["html"]) for c in cases if "registry_chunkers" in c
    ]
    assert sorted(expected) == sorted(REGISTRY_CHUNKS)


# --- fixtures: planted features, each with its literal chunk ----------------------------


def test_feature_tour_renders_every_construct_under_its_heading_path() -> None:
    result = extract("ok_features.html", (FIXTURES / "ok_features.html").read_bytes(), OPTIONS)
    assert (result.kind, result.degraded, result.error) == ("html", False, None)
    assert result.metadata == {"title": "Feature tour & test"}
    intro, setup, code = ["Intro"], ["Intro", "Setup"], ["Intro", "Setup", "Code"]
    assert [(c.text, c.meta["headings"]) for c in result.chunks] == [
        ("# Intro", intro),
        (
            "Plain text with bold, `` inline `code` `` and a [link](https://example.org/a%20b).",
            intro,
        ),
        ("no target and no fragment, an image alt and a space.", intro),
        ("## Setup", setup),
        ("- first\n- second\n  3. three\n  4. four", setup),
        ("> Quoted one.\n>\n> Quoted two.", setup),
        ("Prices", setup),
        (
            "| Item | Cost | Note |\n| --- | --- | --- |\n| a\\|b | wide |  |\n| c | 1 2 |  |",
            setup,
        ),
        ("### Code", code),
        ('````python\ndef f():\n    return "```"\n````', code),
        ("line one\nline two", code),
        ("new paragraph", code),
        ("---", code),
        ("## Layout", ["Intro", "Layout"]),
        ("left cell", ["Intro", "Layout"]),
        ("right cell", ["Intro", "Layout"]),
    ]
    assert result.text == "\n\n".join(c.text for c in result.chunks)


@pytest.mark.parametrize(
    ("name", "title", "texts"),
    [
        ("ok_latin1_meta.html", "Straße", ["Grüße aus Köln ’quoted’ € 5"]),
        ("ok_utf16le_nobom.html", "Wide", ["# Überschrift", "Текст 漢字"]),
        ("ok_utf32be_nobom.html", "Wide", ["# Überschrift", "Текст 漢字"]),
        ("ok_utf8_bom_lying_meta.html", None, ["café — naïve"]),
    ],
)
def test_fixture_decodes_as_a_browser_would(name: str, title: str | None, texts: list[str]) -> None:
    # iso-8859-1 is read as its superset windows-1252 (0x92 is a quote, 0x80 the euro);
    # a BOM beats a <meta> that names another charset.
    result = extract(name, (FIXTURES / name).read_bytes(), OPTIONS)
    assert result.metadata == ({"title": title} if title else {})
    assert [c.text for c in result.chunks] == texts


@pytest.mark.parametrize(
    ("name", "text", "metadata"),
    [
        ("bad_script_only.html", 'document.write(" hi ")', {}),
        ("bad_title_only.html", "Only a title", {"title": "Only a title"}),
    ],
)
def test_page_without_visible_content_degrades_to_one_chunk(
    name: str, text: str, metadata: dict[str, str]
) -> None:
    result = extract(name, (FIXTURES / name).read_bytes(), OPTIONS)
    assert (result.degraded, result.error, result.metadata) == (True, None, metadata)
    assert [(c.text, c.meta) for c in result.chunks] == [(text, {"headings": []})]


# --- behaviours -------------------------------------------------------------------------


def test_heading_path_pops_to_the_new_headings_level() -> None:
    source = "<h1>Intro</h1><h2>Setup</h2><p>a</p><h2>Run</h2><p>b</p><h1>Next</h1><p>c</p>"
    assert chunks_of(source) == [
        ("# Intro", ["Intro"]),
        ("## Setup", ["Intro", "Setup"]),
        ("a", ["Intro", "Setup"]),
        ("## Run", ["Intro", "Run"]),
        ("b", ["Intro", "Run"]),
        ("# Next", ["Next"]),
        ("c", ["Next"]),
    ]


def test_heading_path_uses_plain_text_and_caps_its_length() -> None:
    long = "word " * 60
    assert chunks_of('<h2><a href="/x">Linked</a> title</h2><h3>' + long + "</h3>p") == [
        ("## [Linked](/x) title", ["Linked title"]),
        ("### " + long.strip(), ["Linked title", long[:199] + "…"]),
        ("p", ["Linked title", long[:199] + "…"]),
    ]


@pytest.mark.parametrize(
    ("source", "texts"),
    [
        ("<main>  </main><p>body only</p>", ["body only"]),
        ("<article><p>one</p><article><p>in</p></article></article><p>out</p>", ["one", "in"]),
        ("<article><p>one</p></article><article><p>two</p></article><p>out</p>",
         ["one", "two", "out"]),
        ("<nav>menu</nav><main><p>a</p></main><main><p>b</p></main>", ["a"]),
    ],
)  # fmt: skip
def test_root_is_main_then_one_outermost_article_then_body(source: str, texts: list[str]) -> None:
    assert [text for text, _ in chunks_of(source)] == texts


@pytest.mark.parametrize(
    ("source", "texts"),
    [
        ('<a href="x"><div>A</div><div>B</div></a>', ["[A](x)", "[B](x)"]),
        ("<p>a\u00a0\u00a0b\u2003c\u3000d\te\nf</p>", ["a b c d e f"]),
        ("<p>one<br>two<br><br><br>three</p>", ["one\ntwo", "three"]),
        ("<p>a <code>x``y</code> b <kbd>`k</kbd></p>", ["a ```x``y``` b `` `k ``"]),
        ('<p><a href=" /a\tb ">t</a> <a href="data:x">d</a> <a href="/(p)">p</a></p>',
         ["[t](/ab) d [p](/%28p%29)"]),
        ("<p><img alt='A'><img alt=''><img></p><p><a href=x><img alt='logo'></a></p>",
         ["A", "[logo](x)"]),
        ("<ol start=7><li>a<li>b</ol><li>orphan", ["7. a\n8. b", "- orphan"]),
        ("<ul><li><p>p1</p><p>p2</p></li><li></li><li>c</li></ul>", ["- p1\n  p2\n- c"]),
        ("<h1>a<div>b</div><ul><li>c</ul></h1>", ["# a b c"]),
        ("<select><option>One</option></select><p>x</p>", ["x"]),
        ("<p>x</p>" + "<blockquote>" * 40 + "deep", ["x", "> " * 32 + "deep"]),
    ],
)  # fmt: skip
def test_inline_and_block_rendering(source: str, texts: list[str]) -> None:
    assert [text for text, _ in chunks_of(source)] == texts


@pytest.mark.parametrize(
    ("source", "texts"),
    [
        ("<table><tr><td>x<tr><td>y</table>", ["x", "y"]),
        ("<table><tr><th>H<tr><td>y</table>", ["| H |\n| --- |\n| y |"]),
        ("<table><tr><td>a<td><ul><li>x<li>y</ul></table>", ["| a | x; y |\n| --- | --- |"]),
        ("<table><tr><td><h2>T</h2><td>y</table>", ["## T", "y"]),
        ("<table><tr><td>a<td>b<tr><td> <td> <tr><td>c<td>d</table>",
         ["| a | b |\n| --- | --- |\n| c | d |"]),
        ("<table><tr><td colspan=3>a<tr><td>b<td>c</table>",
         ["| a |  |  |\n| --- | --- | --- |\n| b | c |  |"]),
        ("<table role=presentation><tr><td>a<td>b</table>", ["a", "b"]),
        ("<table><caption>Cap</caption><tr><td>a<td>b</table>",
         ["Cap", "| a | b |\n| --- | --- |"]),
    ],
)  # fmt: skip
def test_data_tables_render_as_gfm_and_layout_tables_as_their_cells(
    source: str, texts: list[str]
) -> None:
    assert [text for text, _ in chunks_of(source)] == texts


@pytest.mark.parametrize(
    ("text_only", "walked"),
    [
        ("<ol start=0><li>a<li> <li>\u00a0<li></li><li>b</ol>",
         "<ol start=0><li><i>a</i><li><i> </i><li><i>\u00a0</i><li><i></i><li>b</ol>"),
        ("<ul><li><a href=x> l </a></li><!--c--> <li><a href='#'>h</a></ul>",
         "<ul><li><i><a href=x> l </a></i></li><!--c--> <li><a href='#'>h</a><i></i></ul>"),
        ("<table><tr><th>k<th colspan=2>v<tr> <td><td>x|y<!--c--></table>",
         "<table><tr><th><i>k</i><th colspan=2><i>v</i><tr> <td><i></i><td><i>x|y</i></table>"),
        ("<table><tr><td>a</td><td> \u00a0 </td></tr><tr><td>b<td></table>",
         "<table><tr><td><i>a</i></td><td><i> \u00a0 </i></td></tr><tr><td><i>b</i><td></table>"),
        ("<h2> Title  here </h2><h3>\u00a0</h3><p>x<a href=y><h4>l</h4></a>",
         "<h2><i> Title  here </i></h2><h3><i>\u00a0</i></h3><p>x<a href=y><h4><i>l</i></h4></a>"),
    ],
)  # fmt: skip
def test_text_only_lists_rows_and_headings_render_as_when_walked(
    text_only: str, walked: str
) -> None:
    # Lists, table rows and headings holding only text take a shortcut past the
    # walk; an <i> around the text forces the walk, which must agree.
    assert chunks_of(text_only) == chunks_of(walked)


def test_oversized_blocks_split_along_their_syntax() -> None:
    options = Options(max_chunk_chars=64)
    rows = "".join(f"<tr><td>row {i:02}</td><td>value</td></tr>" for i in range(8))
    table = chunks_of(f"<table><tr><th>k</th><th>v</th></tr>{rows}</table>", options)
    head = "| k | v |\n| --- | --- |\n"
    assert [t for t, _ in table] == [
        head + "| row 00 | value |\n| row 01 | value |",
        head + "| row 02 | value |\n| row 03 | value |",
        head + "| row 04 | value |\n| row 05 | value |",
        head + "| row 06 | value |\n| row 07 | value |",
    ]
    code = chunks_of("<pre>" + "\n".join(f"line {i}" for i in range(12)) + "</pre>", options)
    assert [t for t, _ in code] == [
        "```\n" + "\n".join(f"line {i}" for i in range(0, 8)) + "\n```",
        "```\n" + "\n".join(f"line {i}" for i in range(8, 12)) + "\n```",
    ]
    items = chunks_of("<ul>" + "".join(f"<li>item number {i}" for i in range(6)) + "</ul>", options)
    assert [t for t, _ in items] == [
        "- item number 0\n- item number 1\n- item number 2\n- item number 3",
        "- item number 4\n- item number 5",
    ]


def test_no_chunk_exceeds_max_chunk_chars_however_long_a_run() -> None:
    options = Options(max_chunk_chars=64)
    source = "<p>" + "x" * 300 + "</p><pre>" + "y" * 300 + "</pre><h1>" + "z " * 100 + "</h1>"
    result = html.chunk(source, options)
    assert result.chunks
    assert all(0 < len(c.text) <= 64 for c in result.chunks)
    assert "".join(c.text for c in result.chunks).count("x") == 300


def test_nesting_past_the_depth_limit_is_read_as_stripped_text() -> None:
    deep = "<div>" * (DEPTH_LIMIT + 1) + "deep &amp; text" + "</div>" * (DEPTH_LIMIT + 1)
    result = html.chunk(deep, OPTIONS)
    assert (result.degraded, [c.text for c in result.chunks]) == (True, ["deep & text"])
    shallow = "<div>" * (DEPTH_LIMIT - 1) + "<p>fine</p>"
    assert (html.chunk(shallow, OPTIONS).degraded, chunks_of(shallow)) == (False, [("fine", [])])


@pytest.mark.parametrize(
    ("source", "depth"),
    [
        ("<div><p>a<br><img></p><ul><li>x<li>y</ul></div>", 2),
        ("<div><!-- </div> --><div><script>'</div>'</script><div>", 3),
        ("</div></div><div><div>", 2),
        ("<b><i>x</i></b><span><span>", 2),
    ],
)
def test_tag_depth_counts_nesting_elements_only(source: str, depth: int) -> None:
    assert tag_depth(source.encode()) == depth


def test_depth_bounds_are_upper_bounds_and_gate_the_tag_count() -> None:
    bomb = b"<div><!-- </a> -->" * (DEPTH_LIMIT + 10)
    assert segment_bound(bomb) >= tag_depth(bomb) == DEPTH_LIMIT + 10
    assert too_deep(bomb)
    assert not too_deep(b"<br>" * (DEPTH_LIMIT * 4))  # tags, but nothing nests
    assert not too_deep(b"<p>x</p>" * 10)


@pytest.mark.parametrize(
    ("head", "charset"),
    [
        (b'<meta charset="Shift_JIS">', "shift_jis"),
        (b"<META HTTP-EQUIV=Content-Type CONTENT='text/html; charset=iso-8859-1'>", "iso-8859-1"),
        (b'<meta charset="utf-16le">', "utf-8"),
        (b"<p>no declaration</p>", None),
        (b" " * 5000 + b'<meta charset="koi8-r">', None),
    ],
)
def test_declared_charset_is_read_from_the_first_4_kb(head: bytes, charset: str | None) -> None:
    assert declared_charset(head) == charset


@pytest.mark.parametrize(
    "data",
    [
        b"<p>plain\r\nascii</p>",
        b"<MeTa charset=cp037><p>x</p>",
        b'<meta charset="utf-16"><p>x</p>',
        b"<meta charset=nonsense><p>x</p>",
        b"\x1c \t",
    ],
)
def test_ascii_pages_decode_as_any_page(data: bytes) -> None:
    assert decode_ascii_html(data) == decode_html(data)


@pytest.mark.parametrize(
    ("source", "title"),
    [
        ("<title> A  b </title><p>x", "A b"),
        ("<head><template><title>T</title></template><title>B</title></head><p>x", "B"),
        ("<head></head><p>x<title>In body</title>", "In body"),
        ("<svg><title>S</title></svg><p>x<title>Late</title>", "Late"),
        ("<p>no title", None),
    ],
)
def test_page_title_is_the_first_title_outside_svg(source: str, title: str | None) -> None:
    assert html.chunk(source, OPTIONS).metadata.get("title") == title


def test_markdown_syntax_helpers() -> None:
    assert paragraphs(" a \x00 b \x00\x00\x00 c ") == ["a\nb", "c"]
    assert inline_span(" x ", "/h") == " [x](/h) "
    assert inline_span("  ", "/h") == " "
    assert inline_span("`a`", None) == "`` `a` ``"
    assert link_target("JavaScript:alert(1)") is None
    assert link_target("#top") is None
    assert link_target("mailto:a@b.c") == "mailto:a@b.c"
    assert code_block("\n\n  indented\n\n", "py") == "```py\n  indented\n```"
    assert code_block(" \n ") == ""
    quote_block = Block("> a\n> b\n> c", "quote", ())
    assert split_block(quote_block, 8) == ["> a\n> b", "> c"]


# --- the real corpus --------------------------------------------------------------------


@pytest.mark.slow
def test_every_corpus_page_keeps_the_invariants(corpus: Path) -> None:
    paths = manifest_paths(corpus, "html", "xhtml")
    assert len(paths) >= 100
    for relpath in paths:
        assert_invariants(corpus, relpath, "html")
        result = extract(relpath, (corpus / relpath).read_bytes(), OPTIONS)
        for c in result.chunks:
            assert isinstance(c.meta["headings"], list), relpath
            assert all(isinstance(h, str) and h for h in c.meta["headings"]), relpath
        json.dumps([c.meta for c in result.chunks])


def test_readability_page_title_and_first_heading(corpus: Path) -> None:
    result = extract("001.html", (corpus / "html-readability/001.html").read_bytes(), OPTIONS)
    assert result.metadata == {
        "title": "Get your Frontend JavaScript Code Covered | Code | Nicolas Perriault"
    }
    first = result.chunks[0]
    assert first.text == (
        "## [Get your Frontend JavaScript Code Covered]"
        "(/code/2013/get-your-frontend-javascript-code-covered/)"
    )
    assert first.meta == {"headings": ["Get your Frontend JavaScript Code Covered"]}
    assert "```\n// cow.js\n(function(exports) {" in result.text


def test_declared_latin1_page_decodes_its_umlauts(corpus: Path) -> None:
    name = "html-trafilatura/cdu-fraktion-erfurt.de.waldorfschule.html"
    result = extract(name, (corpus / name).read_bytes(), OPTIONS)
    assert result.metadata == {
        "title": "CDU-Fraktion im Erfurter Stadtrat - Entwicklung der Waldorfschule ermöglicht"
    }
    assert "\ufffd" not in result.text


def test_page_declaring_gb2312_but_written_in_utf8_reads_as_utf8(corpus: Path) -> None:
    result = extract("qq.html", (corpus / "html-readability/qq.html").read_bytes(), OPTIONS)
    assert result.metadata == {
        "title": "DeepMind新电脑已可利用记忆自学 人工智能迈上新台阶_科技_腾讯网"
    }


def test_undeclared_koi8r_page_is_detected(corpus: Path) -> None:
    name = "text-chardet/KOI8-R/_chromium_KOI8-R_with_no_encoding_specified.html"
    result = extract(name, (corpus / name).read_bytes(), OPTIONS)
    assert result.chunks[0].text.startswith("МОСКВА, 9 янв - РИА Новости.")


def test_one_page_in_five_encodings_gives_one_result(corpus: Path) -> None:
    names = ["utf-8", "utf-16", "utf-16BE", "utf-32", "utf-32BE"]
    results = [
        extract(
            f"{n}.html", (corpus / f"html-mimekit/Gimhae_Kim_clan.{n}.html").read_bytes(), OPTIONS
        )
        for n in names
    ]
    assert all(r == results[0] for r in results[1:])
    assert results[0].metadata == {"title": "Gimhae Kim clan - Wikipedia"}
    assert ("# Gimhae Kim clan", ["Gimhae Kim clan"]) in [
        (c.text, c.meta["headings"]) for c in results[0].chunks
    ]


def test_wikipedia_data_table_is_one_gfm_chunk(corpus: Path) -> None:
    name = "markitdown-test-files/test_wikipedia.html"
    result = extract(name, (corpus / name).read_bytes(), OPTIONS)
    table = next(c for c in result.chunks if c.text.startswith("| Shareholder name |"))
    assert table.text.splitlines()[:3] == [
        "| Shareholder name | Percentage |",
        "| --- | --- |",
        "| [The Vanguard Group](/wiki/The_Vanguard_Group) | 8.9% |",
    ]
    assert table.meta == {"headings": ["Microsoft", "Corporate affairs", "Ownership"]}


# --- properties -------------------------------------------------------------------------

_PIECES = st.sampled_from(
    ["<div>", "</div>", "<p>", "<a href=x>", "</a>", "<ul>", "<li>", "<table>", "<tr>", "<td>",
     "<th>", "<pre>", "</pre>", "<h2>", "</h2>", "<blockquote>", "<code>", "<br>", "<!--", "-->",
     "<script>", "</script>", "&amp;", "`", "|", " ", "\n", "word", "é", "<", ">"]
)  # fmt: skip


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_PIECES, max_size=60))
def test_any_tag_soup_keeps_the_invariants(pieces: list[str]) -> None:
    source = "".join(pieces)
    options = Options(max_chunk_chars=64)
    result = html.chunk(source, options)
    assert bool(result.chunks) == bool(source.strip())
    assert all(c.text.strip() and len(c.text) <= 64 for c in result.chunks)
    assert html.chunk(source, options) == result
