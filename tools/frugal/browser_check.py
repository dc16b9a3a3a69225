#!/usr/bin/env python3
"""Checks a frugal report in headless Chromium, one section at a time.

usage: browser_check.py REPORT.html OUT_DIR [--keep-screenshots DIR]

For each system section of the report, a copy of the page shows only that
section and carries a small inline script that measures every chart. The
copy is rendered by Chromium twice: --dump-dom (the section's title must be
there, and every chart's SVG must have a non-zero rendered size) and
--screenshot (the picture must not be blank). Chromium's console log must
be empty of console messages (so of errors). A control page that logs a console error must be caught,
so the console check can fail. Prints one line per check; exits 1 on the
first failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from PIL import Image

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]
WIDTH, HEIGHT = 1200, 1500

MEASURE = """<script>
(function () {
  var out = [];
  document.querySelectorAll("section.system#SECTION svg.chart").forEach(function (s) {
    var r = s.getBoundingClientRect();
    out.push({label: s.getAttribute("aria-label"), w: r.width, h: r.height});
  });
  var pre = document.createElement("pre");
  pre.id = "frugal-check";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


def fail(msg):
    print("browser_check: FAIL: " + msg)
    sys.exit(1)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    fail("no chromium on PATH (scripts/install-deps.sh installs Debian's chromium)")


def run(browser, args, url):
    with tempfile.TemporaryDirectory(prefix="frugal-chromium-") as profile:
        p = subprocess.run([browser] + FLAGS + ["--user-data-dir=" + profile] + args + [url],
                           capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail("chromium exited %d on %s: %s" % (p.returncode, url, p.stderr.strip()[-400:]))
    return p.stdout, p.stderr


def console_errors(log):
    """Every console message Chromium logged, or uncaught exception.

    Chromium's stderr log does not say a message's level, and the report has
    no scripts (the measuring script logs nothing), so any console message
    at all counts: a failed resource load, a CSP or parse complaint, an
    error."""
    return [l.strip() for l in log.splitlines() if ":CONSOLE" in l or "Uncaught" in l]


def non_blank(png):
    im = Image.open(png).convert("RGB")
    if im.size != (WIDTH, HEIGHT):
        fail("%s is %dx%d, not %dx%d" % (png, im.size[0], im.size[1], WIDTH, HEIGHT))
    small = im.resize((300, 375))
    pixels = list(small.getdata())
    inked = sum(1 for p in pixels if min(p) < 200)
    colours = len(set(pixels))
    return inked / len(pixels), colours


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    report, out = sys.argv[1], sys.argv[2]
    keep = sys.argv[sys.argv.index("--keep-screenshots") + 1] if "--keep-screenshots" in sys.argv else None
    os.makedirs(out, exist_ok=True)
    html = open(report, encoding="utf-8").read()
    browser = chromium()

    # The console check must be able to fail: a page that logs an error.
    control = os.path.join(out, "control.html")
    with open(control, "w") as f:
        f.write("<!DOCTYPE html><html><body><p>control</p>"
                "<script>console.error('frugal-control-error');</script></body></html>")
    _, log = run(browser, ["--dump-dom"], "file://" + os.path.abspath(control))
    if not any("frugal-control-error" in l for l in console_errors(log)):
        fail("the console check missed a console.error on the control page; log:\n" + log[-800:])
    print("ok: the console check catches console.error (control page)")

    sections = re.findall(r'<section class="system" id="([a-z]+)">\s*<h2>([^<]*)</h2>', html)
    if len(sections) != 4:
        fail("expected the 4 system sections, found %s" % [s[0] for s in sections])
    for sid, title in sections:
        body = html.split('id="%s">' % sid, 1)[1].split("</section>", 1)[0]
        charts = body.count('class="chart"')
        hide = ("<style>section.system:not(#%s), header, ul.headlines, footer {display: none !important}"
                "</style>" % sid)
        page = html.replace("</head>", hide + "</head>", 1).replace("</body>", MEASURE.replace("SECTION", sid) + "</body>", 1)
        path = os.path.join(out, sid + ".html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
        url = "file://" + os.path.abspath(path)
        dom, log = run(browser, ["--dump-dom", "--window-size=%d,%d" % (WIDTH, HEIGHT)], url)
        errors = console_errors(log)
        if errors:
            fail("%s: console errors: %s" % (sid, errors[:3]))
        if "<h2>%s</h2>" % title not in dom:
            fail("%s: the title %r is not in the rendered DOM" % (sid, title))
        m = re.search(r'<pre id="frugal-check">(.*?)</pre>', dom, re.S)
        if not m:
            fail("%s: the measuring script did not run" % sid)
        sizes = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&")
                           .replace("&lt;", "<").replace("&gt;", ">"))
        shown = [s for s in sizes if s["w"] > 0 and s["h"] > 0]
        if charts == 0 or len(sizes) != charts or len(shown) != charts:
            fail("%s: %d charts in the page, %d rendered with a size: %s" % (sid, charts, len(shown), sizes))
        png = os.path.join(out, sid + ".png")
        _, log = run(browser, ["--screenshot=" + png, "--window-size=%d,%d" % (WIDTH, HEIGHT),
                               "--hide-scrollbars"], url)
        if console_errors(log):
            fail("%s: console errors while taking the screenshot" % sid)
        inked, colours = non_blank(png)
        if inked < 0.02 or colours < 8:
            fail("%s: the screenshot looks blank (%.1f%% inked pixels, %d colours)" % (sid, 100 * inked, colours))
        print("ok: %s: %r rendered, %d charts all with a size, screenshot %.0f%% inked, %d colours"
              % (sid, title, charts, 100 * inked, colours))
        if keep:
            os.makedirs(keep, exist_ok=True)
            shutil.copy(png, os.path.join(keep, "report-%s.png" % sid))
    return 0


if __name__ == "__main__":
    sys.exit(main())
