"""Sphinx configuration of the treelab documentation site.

Build (warnings are errors, as in CI)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Two kinds of page are written here at every build, so that what other parts of the package add
appears without editing the docs:

* ``docs/api/<module>.rst``: one page per public module, listing every name of its
  ``__all__`` in an autosummary table (stub pages under ``docs/api/generated/``);
* ``docs/_generated/gallery_figures.md``: every PNG under ``docs/figures/``.

Notebooks are rendered from the executed copies in ``docs/notebooks/`` (written by
``scripts/execute_notebooks.py``); the build never runs them.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # document this checkout, not another installed copy

import treelab  # noqa: E402

project = "treelab"
author = "treelab developers"
copyright = "treelab developers, BSD-3-Clause"  # noqa: A001 (Sphinx's name)
release = treelab.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax 3 shipped with the build (copied to _static/mathjax): formulas render offline
    "sphinx-mathjax-offline",
    "numpydoc",
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "_generated", "**.ipynb_checkpoints", "README.md",
                    # included by the generated study pages
                    "reproductions/claims/*", "reproductions/records/*"]
root_doc = "index"

# -- API reference -------------------------------------------------------------------------------
# The public modules; each page lists its module's __all__.
API_MODULES = [
    ("treelab", "Estimators", "The learners: scikit-learn classifiers grown by one engine."),
    ("treelab.analysis", "Analysis", None),
    ("treelab.stats", "Statistics", None),
    ("treelab.combine", "Combination functions", None),
    ("treelab.plot", "Figures", None),
    ("treelab.widgets", "Widgets", None),
    ("treelab.datasets", "Data sets", None),
    ("treelab.protocols", "Evaluation protocols", None),
    ("treelab.experiment", "Experiments", None),
    ("treelab.report", "Tables for papers", None),
    ("treelab.reproduce", "Reproductions", None),
    ("treelab.reproduce.liu2008_investigation", "Investigation: Liu et al. (2008)", None),
    ("treelab.reproduce.alipazzani1995_investigation", "Investigation: Ali & Pazzani (1995)",
     None),
    ("treelab.reproduce.gashler2008_investigation", "Investigation: Gashler et al. (2008)",
     None),
]

autosummary_generate = True
autosummary_generate_overwrite = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_preserve_defaults = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
templates_path = ["_templates"]


def _kind(obj: object) -> str:
    if inspect.ismodule(obj):
        return "Modules"
    if inspect.isclass(obj):
        return "Classes"
    if callable(obj):
        return "Functions"
    return "Constants"


def write_api_pages(app=None) -> list[str]:
    """Write ``api/<module>.rst`` for every module of ``API_MODULES`` from its ``__all__``."""
    out = DOCS / "api"
    out.mkdir(exist_ok=True)
    pages = []
    for name, title, blurb in API_MODULES:
        module = importlib.import_module(name)
        groups: dict[str, list[str]] = {"Modules": [], "Classes": [], "Functions": [],
                                        "Constants": []}
        for public in module.__all__:
            groups[_kind(getattr(module, public))].append(public)
        heading = f"{title} (``{name}``)"
        lines = [heading, "=" * len(heading), ""]
        if blurb:
            lines += [blurb, ""]
        lines += [f".. automodule:: {name}", "", f".. currentmodule:: {name}", ""]
        for kind, names in groups.items():
            if not names:
                continue
            if kind == "Modules":  # a public submodule has a page of its own
                lines += [kind, "-" * len(kind), ""]
                lines += [f"- :mod:`{name}.{n}`" for n in sorted(names)] + [""]
                continue
            lines += [kind, "-" * len(kind), "", ".. autosummary::", "   :toctree: generated",
                      "   :nosignatures:", ""]
            lines += [f"   {n}" for n in sorted(names)] + [""]
        page = out / f"{name}.rst"
        text = "\n".join(lines)
        if not page.is_file() or page.read_text() != text:  # keep mtimes for incremental builds
            page.write_text(text)
        pages.append(page.stem)
    return pages


# -- gallery -------------------------------------------------------------------------------------
# Captions of the figures scripts/make_figures.py draws; a new PNG is shown under its file name.
CAPTIONS = {
    "spectrum": "{func}`treelab.plot.spectrum`: error against alpha per construction "
                "(Liu et al. 2008).",
    "strength_correlation": "{func}`treelab.plot.strength_correlation`: trajectories over "
                            "the contours of Breiman's bound.",
    "error_ratio_vs_phi": "{func}`treelab.plot.error_ratio_vs_phi`: error ratio against "
                          "phi_e with the OLS line (Ali & Pazzani 1995).",
    "error_ratio_vs_gain_ties": "{func}`treelab.plot.error_ratio_vs_gain_ties`: error ratio "
                                "against gain ties per decision node.",
    "reliability": "{func}`treelab.plot.reliability`: reliability curves per class "
                   "(Fan et al. 2005).",
    "bias_variance": "{func}`treelab.plot.bias_variance`: bias and variance of probability "
                     "estimates.",
    "critical_difference": "{func}`treelab.plot.critical_difference`: the worked example of "
                           "Demsar (2006, Table 6).",
    "irrelevant_attributes": "{func}`treelab.plot.irrelevant_attributes`: accuracy against "
                             "added irrelevant attributes.",
    "decision_surface": "{func}`treelab.plot.decision_surface`: predicted probability over "
                        "a 2-D grid with the training points.",
    "exact_mse": "{func}`treelab.plot.measure_curve`: exact MSE against training size.",
}


def write_gallery(app=None) -> None:
    """Write the figure list that ``gallery.md`` includes, one entry per ``figures/*.png``."""
    out = DOCS / "_generated"
    out.mkdir(exist_ok=True)
    lines = []
    for png in sorted((DOCS / "figures").glob("*.png")):
        caption = CAPTIONS.get(png.stem, f"`{png.stem}`")
        # "/" is the source folder; no headings (an included file has no H1 of its own)
        lines += [f"```{{figure}} /figures/{png.name}", f":alt: {png.stem}",
                  ":width: 100%", "", caption, "```", ""]
    text = "\n".join(lines) if lines else "No figures yet: run `python scripts/make_figures.py`.\n"
    page = out / "gallery_figures.md"
    if not page.is_file() or page.read_text() != text:
        page.write_text(text)


write_api_pages()
write_gallery()

# -- autodoc hooks -------------------------------------------------------------------------------
def skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated metadata-routing setters (``set_fit_request``...)."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def _attribute_comment(module_name: str, name: str) -> list[str] | None:
    """The ``#:`` comment of ``name`` in ``module_name`` or one of its submodules."""
    import pkgutil

    from sphinx.pycode import ModuleAnalyzer

    module = importlib.import_module(module_name)
    names = [module_name]
    if hasattr(module, "__path__"):
        names += [m.name for m in pkgutil.walk_packages(module.__path__, module_name + ".")]
    for candidate in names:
        try:
            docs = ModuleAnalyzer.for_module(candidate).find_attr_docs()
        except Exception:  # a module without source (compiled) has no comments to read
            continue
        if ("", name) in docs:
            return list(docs[("", name)])
    return None


CONSTANT_DOCS = {
    "treelab.__version__": "The version of the installed treelab package (``0.0.0`` when "
                           "imported from a source tree that was not installed).",
}


def constant_docstring(app, what, name, obj, options, lines):
    """Give a re-exported constant the ``#:`` comment where it is defined, not its type's
    docstring (autodoc reads comments only in the module that documents the name)."""
    if what != "data":
        return
    module_name, _, attr = name.rpartition(".")
    comment = _attribute_comment(module_name, attr)
    type_doc = inspect.getdoc(type(obj)) or ""
    if name in CONSTANT_DOCS:
        lines[:] = [CONSTANT_DOCS[name]]
    elif comment is not None:
        lines[:] = comment
    elif type_doc and "\n".join(lines).strip() == type_doc.strip():
        lines[:] = []


# Plain-text formulas in docstrings write absolute values as |x|, which reStructuredText reads as
# a substitution reference (an error). Outside literals and roles, escape such pairs.
_LITERAL = re.compile(r"(``.+?``|`[^`]*`)")
_ABSOLUTE = re.compile(r"(?<![\\\w|])\|(?=\S)([^|]*?\S)\|(?![\w|])")


def escape_absolute_values(app, what, name, obj, options, lines):
    """Turn ``|x|`` in a docstring's prose into a literal bar pair, not a substitution."""
    for i, line in enumerate(lines):
        if "|" not in line:
            continue
        parts = _LITERAL.split(line)
        for j in range(0, len(parts), 2):  # even parts lie outside literals and roles
            parts[j] = _ABSOLUTE.sub(r"\\|\1\\|", parts[j])
        lines[i] = "".join(parts)


def setup(app):
    app.connect("autodoc-process-docstring", escape_absolute_values, priority=100)
    app.connect("autodoc-skip-member", skip_member)
    app.connect("autodoc-process-docstring", constant_docstring, priority=100)  # before numpydoc


# -- MyST and notebooks --------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # render the executed copies in docs/notebooks; never run them here
nb_merge_streams = True
# no widget scripts from a CDN: the site works offline, and an explorer needs a running kernel
# anyway (scripts/execute_notebooks.py shows it as a line that says so)
nb_ipywidgets_js: dict = {}

# -- HTML ----------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"treelab {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
}
html_static_path = ["_static"]
html_css_files = ["treelab.css"]  # long names wrap, wide tables scroll
