"""The documentation site works offline: no page loads a script, a stylesheet or a frame from
another host (MathJax ships with the build), and formulas are typeset by that local copy.

The site build takes about 20 CPU-seconds; it runs where the ``docs`` extra is installed, and
is skipped otherwise. CI builds the site with warnings as errors before the tests and names it
in ``TREELAB_BUILT_SITE``: the test then reads that build instead of making a second one.
"""

import html.parser
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REMOTE = ("http://", "https://", "//")


class _Loads(html.parser.HTMLParser):
    """Every resource a page makes the browser load: scripts, stylesheets, preloads, frames,
    images."""

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "iframe", "img", "source", "embed") and a.get("src"):
            self.urls.append((tag, a["src"]))
        elif tag == "link" and a.get("href") and set((a.get("rel") or "").split()) & {
                "stylesheet", "preload", "modulepreload", "prefetch", "icon"}:
            self.urls.append((tag, a["href"]))


def remote_loads(site: Path) -> list[str]:
    """``page: tag url`` for every resource of the built site that comes from elsewhere."""
    found = []
    for page in sorted(site.rglob("*.html")):
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        found += [f"{page.relative_to(site)}: {tag} {url}" for tag, url in parser.urls
                  if url.startswith(REMOTE)]
    return found


def test_the_check_finds_a_remote_script(tmp_path):
    (tmp_path / "a.html").write_text(
        '<html><head><script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js">'
        '</script><script src="_static/local.js"></script>'
        '<link rel="stylesheet" href="//fonts.example.org/x.css"></head>'
        '<body><a href="https://example.org">a link loads nothing</a></body></html>')
    assert remote_loads(tmp_path) == [
        "a.html: script https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js",
        "a.html: link //fonts.example.org/x.css"]


def build_site(out: Path) -> Path:
    """Build the site with warnings as errors, as CI does (skipped without the docs extra), or
    the site CI built already (``TREELAB_BUILT_SITE``, which must hold a built site)."""
    built = os.environ.get("TREELAB_BUILT_SITE")
    if built:
        site = Path(built)
        assert (site / "index.html").is_file(), f"TREELAB_BUILT_SITE={built} holds no site"
        return site
    needed = ("sphinx", "myst_nb", "numpydoc", "pydata_sphinx_theme", "sphinx-mathjax-offline")
    missing = [m for m in needed if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"the docs extra is not installed ({missing}): pip install -e '.[docs]'")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           "docs", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_built_site_works_offline(tmp_path):
    # one test builds the site once (the build writes the API stubs into docs/, which two
    # builds at once, on two workers, would share)
    site = build_site(tmp_path / "html")

    # nothing from another host: MathJax ships with the build, no widget scripts
    assert remote_loads(site) == []

    # formula pages use the shipped MathJax
    page = (site / "measures" / "error_correlation.html").read_text(encoding="utf-8")
    assert "_static/mathjax/tex-chtml.js" in page
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert (site / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()

    # API pages are titled with names that fit: "treelab.analysis.pairwise_diversity" was cut
    # to "treelab.analysis.pairwise_d"
    import re

    pages = sorted((site / "api" / "generated").glob("*.html"))
    assert len(pages) > 50
    for page in pages:
        (title,) = re.findall(r"<h1>(.*?)<a class=\"headerlink\"", page.read_text(
            encoding="utf-8"))
        assert title == page.stem.rsplit(".", 1)[-1], (page.name, title)
    css = (site / "_static" / "treelab.css").read_text()
    assert "overflow-wrap: anywhere" in css
    assert "_static/treelab.css" in pages[0].read_text(encoding="utf-8")
