"""Every page of the built book in a real browser: headless Chromium with networking switched off.

For each page the browser records every request, console message and exception, waits for MathJax,
then checks: nothing is requested from outside the site; no console error or uncaught exception;
every math element is typeset and MathJax reports no error; every image and font loads; nothing
overflows the main column at 1280 px outside code cells (tables and display equations must fit too);
every explorer's picture changes when its slider is dragged with the mouse; every figure (image, SVG or
Plotly output) has a caption, and no Plotly legend, title or axis title overlaps another or a panel. A screenshot of every
page at 1280 px goes to ``_build/screenshots/``.

The browser is driven through the DevTools protocol (``websocket-client``). The driver runs as a
separate process inside a network namespace (``unshare -n``, loopback only) when the system allows it,
so a request to the outside could not succeed even if a check missed it. Run it by hand on a built book:
``python tests/book/test_browser.py _build/html /tmp/report.json _build/screenshots``.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 1280
HEIGHT = 900  # the viewport's height while pages are inspected
BROWSER_TIMEOUT_S = 480  # a guard against a hung browser; the run takes about a minute on two cores


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


# ----------------------------------------------------------------------------------------------------
# the driver (runs in its own process, normally inside `unshare -n`)
# ----------------------------------------------------------------------------------------------------

class DevTools:
    """A minimal DevTools-protocol client on one page target."""

    def __init__(self, ws_url: str):
        import websocket  # websocket-client

        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, **params):
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == my_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def pump(self, seconds: float) -> None:
        """Collect events for ``seconds``."""
        import websocket

        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self.ws.settimeout(left)
            try:
                message = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                break
            if "method" in message:
                self.events.append(message)
        self.ws.settimeout(60)

    def wait_for(self, method: str, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if any(e["method"] == method for e in self.events):
                return True
            self.pump(0.1)
        return False

    def evaluate(self, expression: str, await_promise: bool = False):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=await_promise)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluating {expression[:60]!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def settle(self, quiet: float = 0.4, limit: float = 15.0) -> None:
        """Wait until no request has started or finished for ``quiet`` seconds."""
        network = ("Network.requestWillBeSent", "Network.loadingFinished", "Network.loadingFailed")
        end = time.monotonic() + limit
        while time.monotonic() < end:
            before = sum(e["method"] in network for e in self.events)
            self.pump(quiet)
            if sum(e["method"] in network for e in self.events) == before:
                return

    def drag(self, x0: float, y0: float, x1: float, y1: float, steps: int = 8) -> None:
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x0, y=y0, button="none", buttons=0)
        self.call("Input.dispatchMouseEvent", type="mousePressed", x=x0, y=y0, button="left", buttons=1,
                  clickCount=1)
        for k in range(1, steps + 1):
            x = x0 + (x1 - x0) * k / steps
            y = y0 + (y1 - y0) * k / steps
            self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y, button="left", buttons=1)
        self.call("Input.dispatchMouseEvent", type="mouseReleased", x=x1, y=y1, button="left", buttons=0,
                  clickCount=1)

    def shot(self, clip: dict | None = None) -> bytes:
        """A PNG of the page region ``clip`` (page coordinates), or of the whole page.

        For the whole page the viewport is first made as tall as the page (as puppeteer's ``fullPage`` does) and
        set back to HEIGHT afterwards: capturing beyond the viewport drew the sticky sidebars out of place
        and shifted some pages' text off the left edge of the picture."""
        if clip is None:
            height = min(int(self.evaluate("document.documentElement.scrollHeight")), 30000)
            self.set_viewport(height)
            try:
                return self.shot({"x": 0, "y": 0, "width": WIDTH, "height": height})
            finally:
                self.set_viewport(HEIGHT)
        params = {"format": "png", "optimizeForSpeed": True, "clip": {**clip, "scale": 1}}
        return base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])

    def set_viewport(self, height: int) -> None:
        """A desktop viewport WIDTH px wide and ``height`` px tall."""
        self.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=height, deviceScaleFactor=1, mobile=False)

    def quiet_pointer(self) -> None:
        """Move the mouse off the page content and drop any text selection a drag may have made."""
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=1, y=1, button="none", buttons=0)
        self.evaluate("window.getSelection().removeAllRanges(); document.activeElement && document.activeElement.blur(); 1")


# Everything the page checks read from the DOM after loading (one evaluation per page).
_INSPECT_JS = r"""
(() => {
  const code = '.cell_input, pre, div.highlight, .highlight';
  const col = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const R = col.getBoundingClientRect();
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).slice(0, 2).join('.') : '');
  const what = el => {
    const r = el.getBoundingClientRect();
    const text = (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return `${name(el)} (${Math.round(r.width)} px wide, right edge ${Math.round(r.right - R.right)} px past the column) "${text}"`;
  };
  const clipsX = el => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
  const visible = el => { const s = getComputedStyle(el); return s.visibility !== 'hidden' && s.display !== 'none'; };
  const overflow = [], reported = [];
  for (const el of col.querySelectorAll('*')) {
    if (el.closest(code) || !visible(el)) continue;
    if (reported.some(p => p.contains(el))) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    // content hidden behind a horizontal scrollbar (wide tables, long equations) does not fit either
    if (clipsX(el) && el.scrollWidth > el.clientWidth + 2 && getComputedStyle(el).overflowX !== 'hidden') {
      overflow.push(`${what(el)} scrolls sideways: its content is ${el.scrollWidth} px in ${el.clientWidth} px`);
      reported.push(el); continue;
    }
    if (r.right <= R.right + 1 && r.left >= R.left - 1) continue;
    let a = el.parentElement, clipped = false;
    while (a && a !== col) { if (clipsX(a)) { clipped = true; break; } a = a.parentElement; }
    if (clipped) continue;
    overflow.push(what(el)); reported.push(el);
  }
  if (document.documentElement.scrollWidth > window.innerWidth + 1)
    overflow.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  const maths = [...document.querySelectorAll('.math')];
  const untypeset = maths.filter(m => !m.querySelector('mjx-container'))
      .map(m => (m.textContent || '').replace(/\s+/g, ' ').slice(0, 80));
  const mathErrors = [...document.querySelectorAll('mjx-merror, [data-mjx-error]')]
      .map(m => m.getAttribute('data-mjx-error') || (m.textContent || '').slice(0, 80));
  const images = [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src);
  const figures = [...col.querySelectorAll('img')].filter(i => i.naturalWidth > 0 && i.getBoundingClientRect().width > 0)
      .map(i => ({src: i.src, natural: i.naturalWidth, shown: i.getBoundingClientRect().width}));
  const fonts = [...document.fonts].filter(f => f.status === 'error').map(f => f.family);
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  const explorers = plots.filter(g => g.layout && g.layout.sliders && g.layout.sliders.length).map(g => g.id);
  const widgetSliders = document.querySelectorAll('.widget-slider, .widget-hslider').length;
  return {maths: maths.length, untypeset, mathErrors, mathjax: !!window.MathJax, images, figures, fonts,
          overflow, explorers, plots: plots.length, widgetSliders, height: document.documentElement.scrollHeight};
})()
"""

# Figures and their captions, and the layout of every Plotly figure: boxes from the DOM (one evaluation per page).
# A figure is an image (img), an inline SVG picture in a cell's output, or a Plotly figure, shown on screen in
# the article (the still copies of the explorers that only print shows are not on screen); its caption is the
# non-empty figcaption of the <figure> around it. In a Plotly figure the legend must not overlap the title,
# a panel title or an axis title, the title no axis title, and an axis title no panel it does not belong to
# (boxes overlapping by more than OVERLAP_PX in both directions).
_FIGURES_JS = r"""
((overlapPx) => {
  const col = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const shown = el => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 40 && r.height > 40 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const label = el => {
    const f = el.closest('.cell, section, figure');
    const where = f && f.id ? '#' + f.id : '';
    const src = el.tagName === 'IMG' ? el.getAttribute('src').split('/').pop() : (el.id || el.tagName.toLowerCase());
    return `${el.tagName.toLowerCase()} ${src}${where ? ' in ' + where : ''}`;
  };
  const plots = [...col.querySelectorAll('.js-plotly-plot')].filter(shown);
  const pictures = [...col.querySelectorAll('img')].filter(i => i.naturalWidth > 0 && shown(i))
    .concat([...col.querySelectorAll('.cell_output svg, .output svg')]
      .filter(s => !s.closest('.js-plotly-plot') && !s.closest('mjx-container') && shown(s)))
    .concat(plots);
  const uncaptioned = [];
  for (const el of pictures) {
    const fig = el.closest('figure');
    const cap = fig && fig.querySelector('figcaption');
    if (!cap || !(cap.textContent || '').replace(/\s+/g, ' ').trim()) uncaptioned.push(label(el));
  }
  // a text's box is its font box (ascent to descent): trimmed by a sixth of its height at top and bottom,
  // it is close to the glyphs, so that two lines set one under the other do not count as overlapping
  const box = el => { const r = el.getBoundingClientRect(); const trim = el.tagName === 'text' ? r.height / 6 : 0;
    return [r.left, r.top + trim, r.right, r.bottom - trim]; };
  const meets = (a, b) => Math.min(a[2], b[2]) - Math.max(a[0], b[0]) > overlapPx &&
                          Math.min(a[3], b[3]) - Math.max(a[1], b[1]) > overlapPx;
  const text = el => (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 40);
  const overlaps = [];
  for (const g of plots) {
    const name = g.id || 'plotly figure';
    const titles = [...g.querySelectorAll('.g-gtitle text, text.gtitle')].filter(t => text(t));
    // the legend's entries (symbol and text), not its padded background
    const legends = [...g.querySelectorAll('g.legend g.traces')].filter(l => l.getBoundingClientRect().width > 0);
    const annotations = [...g.querySelectorAll('g.annotation')].filter(a => text(a));
    const axisTitles = [...g.querySelectorAll('text')].filter(t => /^[xy]\d*title$/.test(t.getAttribute('class') || '') && text(t));
    // the panels (cartesian subplots) from Plotly's laid-out axes: offset and length in px within the figure
    const full = g._fullLayout || {}, G = g.getBoundingClientRect();
    const axisOf = id => full[id.replace(/^x/, 'xaxis').replace(/^y/, 'yaxis')];
    const panels = (((full._subplots || {}).cartesian) || []).map(id => {
      const m = /^(x\d*)(y\d*)$/.exec(id), xa = m && axisOf(m[1]), ya = m && axisOf(m[2]);
      return xa && ya ? {name: id, rect: [G.left + xa._offset, G.top + ya._offset,
                                          G.left + xa._offset + xa._length, G.top + ya._offset + ya._length]} : null;
    }).filter(p => p);
    const report = (what, a, b) => overlaps.push(`${name}: ${what} (${JSON.stringify(text(a))} / ${JSON.stringify(text(b))})`);
    for (const l of legends) {
      for (const t of titles) if (meets(box(l), box(t))) report('the legend overlaps the title', l, t);
      for (const a of annotations) if (meets(box(l), box(a))) report('the legend overlaps a panel title', l, a);
      for (const t of axisTitles) if (meets(box(l), box(t))) report('the legend overlaps an axis title', l, t);
    }
    for (const t of titles) for (const a of axisTitles) if (meets(box(t), box(a))) report('the title overlaps an axis title', t, a);
    for (const a of axisTitles) {
      const axis = a.getAttribute('class').replace('title', '');
      for (const p of panels) {
        const m = /^(x\d*)(y\d*)$/.exec(p.name);
        if (!m || m[1] === axis || m[2] === axis) continue;
        if (meets(box(a), p.rect)) report(`the ${axis} axis title lies over the panel ${p.name}`, a, a);
      }
    }
  }
  return {pictures: pictures.length, plots: plots.length, uncaptioned, overlaps};
})
"""

OVERLAP_PX = 2


# The slider rails and grips of one Plotly figure, and what it shows now.
_PLOTLY_STATE_JS = r"""
((id, scroll) => {
  const g = document.getElementById(id);
  if (scroll) g.scrollIntoView({block: 'center'});
  const box = g.getBoundingClientRect();
  const sliders = [...g.querySelectorAll('.slider-container')].map((c, i) => {
    const rail = c.querySelector('.slider-rail-rect').getBoundingClientRect();
    const grip = c.querySelector('.slider-grip-rect').getBoundingClientRect();
    const s = g.layout.sliders[i] || {};
    return {rail: [rail.left, rail.top, rail.width, rail.height], grip: [grip.left, grip.top, grip.width, grip.height],
            active: s.active || 0, steps: (s.steps || []).length};
  });
  return {box: [box.left + window.scrollX, box.top + window.scrollY, box.width, box.height], sliders,
          visible: JSON.stringify(g.data.map(t => t.visible)),
          traces: g.querySelectorAll('.scatterlayer .trace, .heatmaplayer .hm, .barlayer .trace').length};
})
"""

# ipywidgets sliders (rendered from saved widget state): the handle and the picture next to it.
_WIDGET_STATE_JS = r"""
((index) => [...document.querySelectorAll('.widget-slider, .widget-hslider')].map((w, i) => {
  if (i === index) (w.closest('.widget-interact') || w).scrollIntoView({block: 'center'});
  const box = w.closest('.widget-interact') || w.closest('.widget-vbox') || w.parentElement;
  const out = box.querySelector('.widget-output') || box;
  const rail = (w.querySelector('.noUi-target') || w.querySelector('.slider') || w).getBoundingClientRect();
  const handle = (w.querySelector('.noUi-handle') || w.querySelector('.ui-slider-handle') || w).getBoundingClientRect();
  const o = out.getBoundingClientRect();
  const readout = w.querySelector('.widget-readout');
  return {rail: [rail.left, rail.top, rail.width, rail.height], handle: [handle.left, handle.top, handle.width, handle.height],
          out: [o.left + window.scrollX, o.top + window.scrollY, o.width, o.height],
          readout: readout ? readout.textContent : null,
          label: (w.querySelector('.widget-label') || {}).textContent || ''};
}))
"""


def _clip(box):
    x, y, w, h = box
    return {"x": max(x, 0), "y": max(y, 0), "width": max(w, 1), "height": max(h, 1)}


def _check_plotly(dt: DevTools, plot_id: str) -> tuple[list[str], list[str]]:
    """Drag every slider of one Plotly explorer to another step; its picture must change each time."""
    problems, passed = [], []
    state = dt.evaluate(f"{_PLOTLY_STATE_JS}({json.dumps(plot_id)}, true)")
    for index in range(len(state["sliders"])):
        slider = state["sliders"][index]
        if slider["steps"] < 2:
            problems.append(f"explorer {plot_id}: slider {index} has {slider['steps']} step(s)")
            continue
        before_picture = dt.shot(_clip(state["box"]))
        before_visible = state["visible"]
        target = 0 if slider["active"] >= slider["steps"] // 2 else slider["steps"] - 1
        rx, ry, rw, rh = slider["rail"]
        gx, gy, gw, gh = slider["grip"]
        x1 = rx + 4 + (rw - 8) * target / (slider["steps"] - 1)
        dt.drag(gx + gw / 2, gy + gh / 2, x1, gy + gh / 2)
        dt.pump(0.3)
        dt.quiet_pointer()
        state = dt.evaluate(f"{_PLOTLY_STATE_JS}({json.dumps(plot_id)}, false)")
        after_picture = dt.shot(_clip(state["box"]))
        moved = state["sliders"][index]["active"]
        if moved == slider["active"]:
            problems.append(f"explorer {plot_id}: dragging slider {index} did not move it (step {moved})")
        elif state["visible"] == before_visible or after_picture == before_picture:
            problems.append(f"explorer {plot_id}: slider {index} moved to step {moved} but the picture did not change")
        else:
            passed.append(f"explorer {plot_id} slider {index}: step {slider['active']} -> {moved}, picture changed")
    return problems, passed


def _check_widgets(dt: DevTools) -> tuple[list[str], list[str]]:
    """Drag every ipywidgets slider across its rail; the picture next to it must change."""
    problems, passed = [], []
    count = len(dt.evaluate(f"{_WIDGET_STATE_JS}(-1)"))
    for index in range(count):
        slider = dt.evaluate(f"{_WIDGET_STATE_JS}({index})")[index]
        dt.quiet_pointer()
        before = dt.shot(_clip(slider["out"]))
        rx, ry, rw, rh = slider["rail"]
        hx, hy, hw, hh = slider["handle"]
        start = hx + hw / 2
        end = rx + rw - 2 if start < rx + rw / 2 else rx + 2
        dt.drag(start, hy + hh / 2, end, hy + hh / 2)
        dt.pump(0.5)
        dt.quiet_pointer()
        after_state = dt.evaluate(f"{_WIDGET_STATE_JS}(-1)")[index]
        after = dt.shot(_clip(after_state["out"]))
        label = f"widget slider {slider['label']!r}"
        if after_state["readout"] == slider["readout"]:
            problems.append(f"{label}: dragging it did not move it (readout {slider['readout']})")
        elif after == before:
            problems.append(f"{label} moved ({slider['readout']} -> {after_state['readout']}) "
                            "but the picture did not change")
        else:
            passed.append(f"{label}: {slider['readout']} -> {after_state['readout']}, picture changed")
    return problems, passed


SMALLEST_TEXT_PX = 8.0


def _png_dpi(path: Path) -> float | None:
    """The resolution a PNG declares (pHYs chunk; matplotlib writes its savefig dpi there)."""
    import struct

    try:
        data = path.read_bytes()[:4096]
    except OSError:
        return None
    at = data.find(b"pHYs")
    if at < 0:
        return None
    x, _, unit = struct.unpack(">IIB", data[at + 4:at + 13])
    return x * 0.0254 if unit == 1 else None


def text_size_px(figure: dict) -> float | None:
    """Estimated on-screen height of 10-point text in a figure (matplotlib's default size) at its shown width.

    A figure saved at d dpi draws 10 pt text 10·d/72 pixels high; shown at ``shown`` of its ``natural`` width
    it is scaled by shown/natural. Images without a declared resolution are not estimated.
    """
    from urllib.parse import unquote, urlparse

    url = urlparse(figure["src"])
    if url.scheme != "file" or not url.path.endswith(".png"):
        return None
    dpi = _png_dpi(Path(unquote(url.path)))
    if not dpi:
        return None
    return 10 * dpi / 72 * figure["shown"] / figure["natural"]


def _inside(url: str, html_root: Path) -> bool:
    if url.startswith(("data:", "blob:", "about:")):
        return True
    return url.startswith(html_root.resolve().as_uri() + "/")


def inspect_page(dt: DevTools, html_root: Path, page: str, shots: Path) -> dict:
    """Load one page and return its problems (a list of sentences) and the checks it passed."""
    clock = [time.monotonic()]

    def lap(what):
        if os.environ.get("BROWSER_TIMINGS"):
            print(f"{page}: {what} {time.monotonic() - clock[0]:.2f} s", file=sys.stderr)
        clock[0] = time.monotonic()

    dt.events.clear()
    dt.set_viewport(HEIGHT)
    dt.call("Page.navigate", url=(html_root / page).resolve().as_uri())
    loaded = dt.wait_for("Page.loadEventFired", 90)
    dt.settle()
    dt.evaluate("""(async () => {
        if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
        if (document.fonts) await document.fonts.ready;
        return true; })()""", await_promise=True)
    # images are not lazy, so they load wherever they are; wait until they have
    dt.evaluate("""(async () => { await Promise.all([...document.images].map(i => i.complete ? 0 :
        new Promise(r => { i.onload = i.onerror = r; setTimeout(r, 5000); }))); return true; })()""",
                await_promise=True)
    lap("load")
    found = dt.evaluate(_INSPECT_JS)
    figures = dt.evaluate(f"{_FIGURES_JS}({OVERLAP_PX})")
    lap("inspect")
    shots.mkdir(parents=True, exist_ok=True)
    (shots / (page.replace("/", "__").removesuffix(".html") + ".png")).write_bytes(dt.shot())
    lap("screenshot")

    problems, passed = [], []
    if not loaded:
        problems.append("the page did not finish loading within 90 s")
    explorer_problems, explorer_passed = [], []
    for plot_id in found["explorers"]:
        p, ok = _check_plotly(dt, plot_id)
        explorer_problems += p
        explorer_passed += ok
    if found["widgetSliders"]:
        p, ok = _check_widgets(dt)
        explorer_problems += p
        explorer_passed += ok
    if found["explorers"]:
        # in print the interactive figures give way to their still figures
        dt.call("Emulation.setEmulatedMedia", media="print")
        printed = dt.evaluate("""({
            plots: [...document.querySelectorAll('.plotly-explorer')].filter(e => e.getBoundingClientRect().height > 0).length,
            stills: [...document.querySelectorAll('.tag_print-only img')]
                .filter(i => i.naturalWidth > 0 && i.getBoundingClientRect().width > 0).length})""")
        dt.call("Emulation.setEmulatedMedia", media="")
        if printed["plots"] or printed["stills"] < len(found["explorers"]):
            explorer_problems.append(f"in print {printed['plots']} interactive figure(s) show and {printed['stills']} "
                                     f"still figure(s) for {len(found['explorers'])} explorers")
        else:
            explorer_passed.append(f"in print: {printed['stills']} still figures, no interactive one")
    dt.pump(0.2)
    lap("explorers")

    urls = {}
    for event in dt.events:
        method, params = event["method"], event.get("params", {})
        if method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            urls[params["requestId"]] = (url, params.get("type", ""))
            if not _inside(url, html_root):
                problems.append(f"request outside the site: {url}")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            url, kind = urls.get(params["requestId"], ("?", params.get("type", "")))
            kind = params.get("type", kind)
            problems.append(f"{kind or 'resource'} did not load: {url} ({params.get('errorText')})")
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = (details.get("exception") or {}).get("description") or details.get("text")
            problems.append(f"uncaught exception: {text.splitlines()[0] if text else details}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            problems.append(f"console error: {text[:200]}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            problems.append(f"console error: {params['entry'].get('text', '')[:200]}")

    if found["maths"] and not found["mathjax"]:
        problems.append(f"{found['maths']} math elements but MathJax is not loaded")
    problems += [f"math not typeset: {t!r}" for t in found["untypeset"]]
    problems += [f"MathJax error: {t!r}" for t in found["mathErrors"]]
    problems += [f"image did not load: {src}" for src in found["images"]]
    legibility = []
    for figure in found["figures"]:
        size = text_size_px(figure)
        if size is not None:
            legibility.append({"image": figure["src"].rsplit("/", 1)[-1], "text_px": round(size, 1),
                               "natural": figure["natural"], "shown": round(figure["shown"])})
            if size < SMALLEST_TEXT_PX:
                problems.append(f"figure {figure['src'].rsplit('/', 1)[-1]} is shown at {figure['shown']:.0f} of its "
                                f"{figure['natural']} px: its 10-pt text is {size:.1f} px high (illegible)")
    problems += [f"font did not load: {family}" for family in found["fonts"]]
    problems += [f"overflows the main column at {WIDTH} px: {o}" for o in found["overflow"]]
    problems += explorer_problems
    problems += [f"figure without a caption: {f}" for f in figures["uncaptioned"]]
    problems += [f"Plotly layout: {o}" for o in figures["overlaps"]]
    passed += [f"{figures['pictures']} figures captioned", f"{figures['plots']} Plotly figures without overlaps"]
    passed += [f"{found['maths']} math elements typeset", "no request outside the site", "no console error",
               "every image and font loaded", f"fits the column at {WIDTH} px"]
    passed += explorer_passed
    passed += [f"figures legible (10-pt text at least {SMALLEST_TEXT_PX:g} px)"] if found["figures"] else []
    return {"problems": list(dict.fromkeys(problems)), "passed": passed, "explorers": found["explorers"],
            "legibility": legibility,
            "explorers_moved": sum("picture changed" in p for p in explorer_passed), "plots": found["plots"],
            "figures": figures}


def drive(html_root: Path, pages: list[str], shots: Path) -> dict:
    """Start Chromium, inspect every page, return {page: result}."""
    binary = chromium_binary()
    profile = Path(tempfile.mkdtemp(prefix="book-chromium-"))
    proc = subprocess.Popen(
        [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
         "--remote-allow-origins=*", f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
         "--disable-background-networking", "--disable-component-update", "--disable-extensions",
         "--disable-sync", "--mute-audio", "--hide-scrollbars", f"--window-size={WIDTH},{HEIGHT}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = profile / "DevToolsActivePort"
        for _ in range(300):
            if port_file.is_file() and port_file.read_text().strip():
                break
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        targets = json.loads(opener.open(f"http://127.0.0.1:{port}/json/list", timeout=30).read())
        page_target = next(t for t in targets if t["type"] == "page")
        dt = DevTools(page_target["webSocketDebuggerUrl"])
        for domain in ("Page", "Network", "Runtime", "Log"):
            dt.call(f"{domain}.enable")
        dt.call("Network.setCacheDisabled", cacheDisabled=True)
        report = {}
        for page in pages:
            try:
                report[page] = inspect_page(dt, html_root, page, shots)
            except Exception as error:  # a page the driver could not inspect is a failure of that page
                report[page] = {"problems": [f"could not inspect the page: {error!r}"], "passed": [],
                                "explorers": [], "explorers_moved": 0, "plots": 0, "legibility": []}
        return report
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)


def book_pages(html_root: Path) -> list[str]:
    """Every HTML page of the built site (not the copied sources or static files)."""
    return sorted(p.relative_to(html_root).as_posix() for p in html_root.rglob("*.html")
                  if not {"_static", "_sources", "_images"} & set(p.relative_to(html_root).parts))


def run_in_browser(html_root: Path, shots: Path) -> dict:
    """Run the driver in a separate process, without network when the system allows it."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        command = [sys.executable, str(Path(__file__).resolve()), str(html_root), str(out), str(shots)]
        isolated = shutil.which("unshare") and subprocess.run(
            ["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True).returncode == 0
        if isolated:
            quoted = " ".join(f"'{c}'" for c in command)
            command = ["unshare", "-n", "sh", "-c", f"ip link set lo up && exec {quoted}"]
        result = subprocess.run(command, capture_output=True, text=True, timeout=BROWSER_TIMEOUT_S)
        if result.returncode != 0 or not out.is_file():
            raise RuntimeError(f"the browser driver failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        report = json.loads(out.read_text())
        report["_network_isolated"] = bool(isolated)
        return report


if __name__ == "__main__":
    html_dir, report_file, shots_dir = (Path(a) for a in sys.argv[1:4])
    started = time.monotonic()
    chosen = sys.argv[4:] or book_pages(html_dir)  # optional: only these pages
    result = drive(html_dir.resolve(), chosen, shots_dir)
    result["_seconds"] = round(time.monotonic() - started, 1)
    report_file.write_text(json.dumps(result, indent=1))
    sys.exit(0)


# ----------------------------------------------------------------------------------------------------
# the tests
# ----------------------------------------------------------------------------------------------------

import pytest  # noqa: E402  (the driver above runs without pytest)

pytestmark = [
    pytest.mark.book,
    pytest.mark.skipif(chromium_binary() is None, reason="Chromium is not installed (.ci/run installs it)"),
]


@pytest.fixture(scope="module")
def browser_report(built_book):
    shots = built_book.parent / "screenshots"
    shutil.rmtree(shots, ignore_errors=True)
    return run_in_browser(built_book, shots)


def test_every_page_renders_cleanly_in_the_browser(browser_report, built_book):
    pages = book_pages(built_book)
    assert {"index.html", "book/intro.html", "book/ledger.html", "notebooks/15_explorers.html"} <= set(pages)
    failures = {page: browser_report[page]["problems"] for page in pages if browser_report[page]["problems"]}
    assert not failures, "\n".join(f"{page}:\n  " + "\n  ".join(p) for page, p in failures.items())


def test_screenshot_of_every_page(browser_report, built_book):
    shots = built_book.parent / "screenshots"
    for page in book_pages(built_book):
        shot = shots / (page.replace("/", "__").removesuffix(".html") + ".png")
        assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", page


def test_explorers_move_with_their_sliders(browser_report):
    """The explorer chapter's figures must be found and must each have moved (not pass vacuously)."""
    chapter = browser_report["notebooks/15_explorers.html"]
    assert len(chapter["explorers"]) >= 4, chapter
    assert chapter["explorers_moved"] >= len(chapter["explorers"]), chapter


def _fixture_pages(root: Path) -> None:
    """Two small pages: one whose figures follow the rules, one that breaks each rule once."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import plotly
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    shutil.copy(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", root / "plotly.min.js")
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2, 3])
    fig.savefig(root / "line.png", dpi=100)
    plt.close(fig)

    def plot(figure, div):
        return figure.to_html(full_html=False, include_plotlyjs=False, div_id=div,
                              config={"responsive": False, "staticPlot": True})

    lines = [go.Scatter(x=[1, 2, 3], y=[1, 4, 9], name="squares"), go.Scatter(x=[1, 2, 3], y=[1, 2, 3], name="line")]
    good = go.Figure(lines, layout=dict(title="A clear title", width=800, height=450, xaxis_title="x",
                                        yaxis_title="y", legend=dict(x=1.02, y=0.5)))
    crowded = go.Figure(lines, layout=dict(title=dict(text="A title under the legend", x=0.5, xanchor="center",
                                                      y=0.92, yanchor="middle"),
                                           width=800, height=450, margin=dict(t=120),
                                           legend=dict(orientation="h", x=0.5, xanchor="center", yref="container",
                                                       y=0.92, yanchor="middle")))
    panels = make_subplots(rows=1, cols=2, horizontal_spacing=0.01)
    panels.add_trace(lines[0], row=1, col=1)
    panels.add_trace(lines[1], row=1, col=2)
    panels.update_layout(width=800, height=450, title="Two panels", legend=dict(x=1.02, y=0.5))
    panels.update_yaxes(title_text="the right panel's axis", row=1, col=2)

    head = '<html><head><meta charset="utf-8"><script src="plotly.min.js"></script></head><body><main>'
    (root / "good.html").write_text(
        head + '<figure><img src="line.png" width="400"><figcaption><p>Fig. 1.1 A line.</p></figcaption></figure>'
        + f'<figure>{plot(good, "good-plot")}<figcaption><p>Fig. 1.2 Squares.</p></figcaption></figure>'
        + "</main></body></html>", encoding="utf-8")
    (root / "bad.html").write_text(
        head + '<div class="cell_output"><img src="line.png" width="400"></div>'
        + '<figure><img src="line.png" width="400"><figcaption> </figcaption></figure>'
        + f'<figure>{plot(crowded, "crowded-plot")}<figcaption>Legend over title.</figcaption></figure>'
        + f'<figure>{plot(panels, "panels-plot")}<figcaption>Axis title over a panel.</figcaption></figure>'
        + "</main></body></html>", encoding="utf-8")


def test_figure_checks_pass_and_fail_on_small_pages(tmp_path):
    """The caption and Plotly-overlap checks on two small pages (not the book): both can pass and fail."""
    html = tmp_path / "site"
    html.mkdir()
    _fixture_pages(html)
    report = run_in_browser(html, tmp_path / "shots")
    good, bad = report["good.html"], report["bad.html"]
    assert good["figures"] == {"pictures": 2, "plots": 1, "uncaptioned": [], "overlaps": []}, good
    assert bad["figures"]["pictures"] == 4 and len(bad["figures"]["uncaptioned"]) == 2, bad["figures"]
    overlaps = bad["figures"]["overlaps"]
    assert any(o.startswith("crowded-plot: the legend overlaps the title") for o in overlaps), overlaps
    assert any(o.startswith("panels-plot: the y2 axis title lies over the panel xy") for o in overlaps), overlaps
    assert not [o for o in overlaps if o.startswith("good-plot")]
