"""The theme's chrome made small: one copy of what every page repeats, kept in shared files.

mkdocs-material writes the same header, tabs, drawer and footer around every page; at
conference scale that chrome was three quarters of the site's bytes. ``slim_page`` rewrites
the chrome of a built page (everything outside its ``<article>``, which holds the page's own
content and is never touched) without changing what a reader sees:

- whitespace runs become one space or one line break, as the browser reads them anyway
  (not inside ``<pre>``, ``<textarea>``, ``<script>`` or ``<style>``);
- each inline icon (the logo, the palette toggles, the repository mark...) becomes a
  ``<use>`` of one shared sprite file, which the browser caches once for the whole site;
- each long inline script that is the same on every page (the palette switch) becomes a
  shared file, loaded the same way (a plain blocking ``<script src>``, so it runs at the same
  point of the page);
- the stylesheets a page links one after the other become one shared file that joins them
  (one request, one tag), named by their content (``ra-<hash>.css`` beside them);
- what only the theme's script uses (the back-to-top button, the dialog that says "copied",
  the theme's configuration ``#__config``) is written by one shared script at the place each
  stood, with the site's root found from the script's own address: without JavaScript none
  of them did anything;
- an empty table-of-contents sidebar that the page hides is dropped;
- when the theme's own search box is not on the page (the site's search is a form to
  Pagefind's page), its button goes (the stylesheet hid it) and so do its settings in the
  theme's configuration (``#__config``), with the configuration's empty keys;
- the configuration lists only the features the theme's script reads (the others shaped the
  HTML already);
- what the theme writes on every page for features a page does not use goes: the empty skip
  and announcement slots, the drawer's overlay on a page without a drawer (and its toggle's
  id: the theme's script finds it by its ``data-md-toggle``), the script that opens a content
  tab named in the URL on a page without content tabs, the generator tag.

Pure: HTML in, HTML and what the shared files must hold out. The plugin writes those files.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

SPRITE = "assets/images/ra-icons.svg"
SCRIPTS = "assets/javascripts/ra-shared"  # + /<hash>.js, named by content: cached for good
SCRIPT_MIN = 400  # shorter inline scripts cost less than a request of their own

_PROTECTED = re.compile(r"<(pre|textarea|script|style)\b.*?</\1\s*>", re.S | re.I)
_SPACES = re.compile(r"\s+")
_ICON = re.compile(
    r'<svg xmlns="http://www\.w3\.org/2000/svg" viewBox="([0-9. -]+)">(.*?)</svg>', re.S
)
_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
_SEARCH_BUTTON = re.compile(
    r'<label class="md-header__button md-icon" for="__search">\s*<svg\b.*?</svg>\s*</label>', re.S
)
_THEME_SEARCH = 'data-md-component="search"'
_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S)
_EMPTY_SLOT = re.compile(r'<div data-md-component="(?:skip|announce)">\s*</div>\s*')
_TOGGLE = (
    '<input class="md-toggle" data-md-toggle="{0}" type="checkbox" id="__{0}" autocomplete="off">'
)
_BARE_TOGGLE = '<input class="md-toggle" data-md-toggle="{0}" type="checkbox">'
_OVERLAY = re.compile(r'<label class="md-overlay" for="__drawer"></label>\s*')
_GENERATOR = re.compile(r'<meta name="generator" content="[^"]*">\s*')
_TAB_SCRIPT = re.compile(
    r"<script>var target=document\.getElementById\(location\.hash[^<]*__tabbed_[^<]*</script>\s*"
)
# features that only shape the HTML the theme writes: its script never reads them
HTML_FEATURES = frozenset(
    {
        "navigation.tabs",
        "navigation.top",
        "navigation.prune",
        "navigation.indexes",
        "navigation.sections",
        "navigation.expand",
        "navigation.path",
        "navigation.footer",
        "toc.integrate",
    }
)
_STYLE_RUN = re.compile(r'(?:<link rel="stylesheet" href="[^"]+">\s*){2,}')
_STYLE_HREF = re.compile(r'<link rel="stylesheet" href="([^"]+)">')
_SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/")
_DIALOG = re.compile(
    r'<div class="md-dialog" data-md-component="dialog">\s*'
    r'<div class="md-dialog__inner md-typeset"></div>\s*</div>\s*'
)
_TOP = re.compile(
    r'<button type="button" class="md-top md-icon" data-md-component="top" hidden>.*?</button>\s*',
    re.S,
)
# writes what only the theme's script uses, where it stood; %s: the dialog, the button (its
# links from the site's root) and the configuration (its "base": the site's root)
_SCRIPT_ONLY = """(function () {
  // the theme's script-only parts of a page, written by one file that every page shares
  var me = document.currentScript, root = new URL("../../..", me.src).href;
  var dialog = %s, top = %s, config = %s;
  var main = document.querySelector("[data-md-component=main]");
  if (top && main) main.insertAdjacentHTML("beforeend", top.split('href="').join('href="' + root));
  if (dialog) me.insertAdjacentHTML("beforebegin", dialog);
  config.base = root;
  var json = document.createElement("script");
  json.id = "__config";
  json.type = "application/json";
  json.textContent = JSON.stringify(config);
  me.before(json);
})();"""
_EMPTY_TOC = re.compile(
    r'<div class="md-sidebar md-sidebar--secondary" data-md-component="sidebar" '
    r'data-md-type="toc" hidden>\s*<div class="md-sidebar__scrollwrap">\s*'
    r'<div class="md-sidebar__inner">\s*<nav class="md-nav md-nav--secondary" '
    r'aria-label="[^"]*">\s*</nav>\s*</div>\s*</div>\s*</div>'
)


@dataclass
class Shared:
    """What the slimmed pages refer to: icons by id, scripts by file name."""

    icons: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (viewBox, body)
    scripts: dict[str, str] = field(default_factory=dict)  # site path -> source
    styles: dict[str, str] = field(default_factory=dict)  # site path -> joined stylesheets
    # the site's stylesheets by site path, read before the pages are built: only these join
    css: dict[str, str] = field(default_factory=dict)

    def sprite(self) -> str:
        """The sprite file: one ``<symbol>`` per icon, in id order (the same bytes each build)."""
        symbols = "".join(
            f'<symbol id="{key}" viewBox="{box}">{body}</symbol>'
            for key, (box, body) in sorted(self.icons.items())
        )
        return f'<svg xmlns="http://www.w3.org/2000/svg">{symbols}</svg>\n'


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def collapse_spaces(text: str) -> str:
    """Each run of whitespace as one line break (if it had one) or one space, except inside
    ``<pre>``, ``<textarea>``, ``<script>`` and ``<style>``: the page renders the same."""
    out: list[str] = []
    at = 0
    for match in _PROTECTED.finditer(text):
        out += (_SPACES.sub(_one_space, text[at : match.start()]), match[0])
        at = match.end()
    out.append(_SPACES.sub(_one_space, text[at:]))
    return "".join(out)


def _one_space(run: re.Match[str]) -> str:
    return "\n" if "\n" in run[0] else " "


def slim_chrome(
    text: str,
    root: str,
    shared: Shared,
    theme_search: bool = False,
    drawer: bool = True,
    tabbed: bool = True,
) -> str:
    """One stretch of theme chrome made small; ``root`` is the relative link to the site's
    root from the page (``../../``), so the shared files resolve from any depth. What the
    page uses keeps its parts: ``theme_search``, the theme's own search box (its settings);
    ``drawer``, a drawer (its overlay); ``tabbed``, content tabs (the script that opens one)."""
    text = _EMPTY_SLOT.sub("", _GENERATOR.sub("", _EMPTY_TOC.sub("", text)))
    # a toggle nothing on the page opens keeps only what the theme's script looks it up by
    if not theme_search:
        text = _SEARCH_BUTTON.sub("", text).replace(
            _TOGGLE.format("search"), _BARE_TOGGLE.format("search")
        )
    if not drawer:
        text = _OVERLAY.sub("", text).replace(
            _TOGGLE.format("drawer"), _BARE_TOGGLE.format("drawer")
        )
    if not tabbed:
        text = _TAB_SCRIPT.sub("", text)
    text = _CONFIG.sub(lambda m: _trim_config(m, theme_search), text)
    text = _STYLE_RUN.sub(lambda m: _join_styles(m, root, shared), text)
    if not theme_search:  # its settings hold links from the page: left as they are
        text = _script_only(text, root, shared)

    def script(match: re.Match[str]) -> str:
        source = match[1]
        if len(source) < SCRIPT_MIN or "../" in source:  # short, or tied to the page's depth
            return match[0]
        path = f"{SCRIPTS}/{_digest(source)}.js"
        shared.scripts.setdefault(path, source)
        return f'<script src="{root}{path}"></script>'

    text = _SCRIPT.sub(script, _ICON.sub(lambda m: _sprite_use(m, root, shared), text))
    return collapse_spaces(text)


def _join_styles(run: re.Match[str], root: str, shared: Shared) -> str:
    """Stylesheets linked one after the other, as one shared file that joins them in order,
    in their folder (so their own relative links still resolve); left as they are unless
    each is one of the site's own (``shared.css``), all in one folder, none with an
    ``@import`` (which must stand at the top of a file)."""
    hrefs = _STYLE_HREF.findall(run[0])
    paths = [href[len(root) :] for href in hrefs]
    texts = [shared.css.get(path) for path in paths]
    folders = {path.rpartition("/")[0] for path in paths}
    if (
        not all(href.startswith(root) for href in hrefs)
        or len(folders) != 1
        or any(text is None or "@import" in text for text in texts)
    ):
        return run[0]
    joined = "\n".join(
        f"/* {path} */\n{_SOURCE_MAP.sub('', text or '')}"
        for path, text in zip(paths, texts, strict=True)
    )
    folder = folders.pop()
    path = f"{folder}/ra-{_digest(joined)}.css" if folder else f"ra-{_digest(joined)}.css"
    shared.styles.setdefault(path, joined)
    return f'<link rel="stylesheet" href="{root}{path}">\n'


def _script_only(text: str, root: str, shared: Shared) -> str:
    """The back-to-top button, the dialog and the theme's configuration, as one shared script
    standing where the configuration stood; the text as it was without a configuration, or
    with one that holds a link from the page (beyond its ``base``)."""
    found = _CONFIG.search(text)
    if found is None:
        return text
    try:
        config = json.loads(found[2])
    except ValueError:
        return text
    if not isinstance(config, dict):
        return text
    config.pop("base", None)
    if "../" in json.dumps(config):
        return text
    dialog, top = _DIALOG.search(text), _TOP.search(text)
    # the button's icon as a link from the site's root: the script puts the root before it
    button = _ICON.sub(lambda m: _sprite_use(m, "", shared), top[0].strip()) if top else None
    source = _SCRIPT_ONLY % tuple(
        json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        for value in (
            collapse_spaces(dialog[0].strip()) if dialog else None,
            collapse_spaces(button) if button else None,
            config,
        )
    )
    path = f"{SCRIPTS}/{_digest(source)}.js"
    shared.scripts.setdefault(path, source)
    tag = f'<script src="{root}{path}"></script>'
    text = _CONFIG.sub(lambda m: tag, text, count=1)
    return _TOP.sub("", _DIALOG.sub("", text, count=1), count=1)


def _sprite_use(match: re.Match[str], root: str, shared: Shared) -> str:
    """An inline icon as a ``<use>`` of its symbol in the shared sprite."""
    box, body = match[1], match[2]
    key = "i" + _digest(box + body)
    shared.icons.setdefault(key, (box, body))
    return f'<svg viewBox="{box}"><use href="{root}{SPRITE}#{key}"></use></svg>'


def _trim_config(match: re.Match[str], theme_search: bool) -> str:
    """The theme's configuration without the features its script does not read, without its
    search box's settings unless the box is on the page, and without empty keys (the theme's
    script reads a missing key as it reads ``null``)."""
    try:
        config = json.loads(match[2])
    except ValueError:
        return match[0]
    if not isinstance(config, dict):
        return match[0]
    if isinstance(config.get("features"), list):
        config["features"] = [f for f in config["features"] if f not in HTML_FEATURES]
    words = config.get("translations")
    if not theme_search:
        config.pop("search", None)
        if isinstance(words, dict):
            config["translations"] = {
                k: v for k, v in words.items() if not k.startswith(("search.", "select."))
            }
    kept = {k: v for k, v in config.items() if v is not None}
    return match[1] + json.dumps(kept, separators=(",", ":"), ensure_ascii=False) + match[3]


def slim_page(html: str, root: str, shared: Shared) -> str:
    """A built page with its chrome slimmed and its ``<article>`` (the content) as it was."""
    start = html.find("<article")
    end = html.rfind("</article>")
    drawer = html.count('for="__drawer"') > 1  # more than the overlay: a button, a drawer
    tabbed = 'name="__tabbed_' in html
    if start < 0 or end < start:
        return slim_chrome(html, root, shared, _THEME_SEARCH in html, drawer, tabbed)
    head, tail = html[:start], html[end:]
    uses = (_THEME_SEARCH in head or _THEME_SEARCH in tail, drawer, tabbed)
    return (
        slim_chrome(head, root, shared, *uses)
        + html[start:end]
        + slim_chrome(tail, root, shared, *uses)
    )
