/* SPDX-License-Identifier: Apache-2.0 */
/* The shared parts of the HTML pages: head, style, verdict, findings. */
#include "html_page.h"

#include "html_escape.h"
#include "text_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Okabe-Ito colours (Okabe & Ito, "Color Universal Design", 2008): told
 * apart with every common colour-vision deficiency. */
static const char style[] =
    ":root{--bg:#fff;--fg:#1d1d1f;--muted:#5f6368;--grid:#e4e4e4;--card:#f5f5f7;--edge:#d0d0d5;"
    "--c0:#0072b2;--c1:#e69f00;--c2:#009e73;--c3:#cc79a7;--c4:#56b4e9;--c5:#d55e00;--c6:#f0e442;--c7:#000;"
    "--peer:#8c8c8c;--crit:#d55e00;--warn:#e69f00;--info:#56b4e9;--ok:#009e73;color-scheme:light dark}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#16181b;--fg:#e8e8ea;--muted:#a0a4a8;--grid:#33373c;"
    "--card:#202327;--edge:#3a3e44;--c0:#56b4e9;--c4:#0072b2;--c7:#ddd;--peer:#8c8c8c}}\n"
    "*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);"
    "font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}\n"
    "main{max-width:1220px;margin:0 auto;padding:16px 20px 40px}h1{font-size:22px;margin:4px 0}"
    "h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--edge);padding-bottom:4px}"
    "h3{font-size:15px;margin:18px 0 6px}.meta{color:var(--muted)}code{font:12px ui-monospace,monospace}\n"
    ".banner{border-left:4px solid var(--warn);background:var(--card);padding:6px 10px;margin:8px 0}\n"
    ".verdict{font-size:18px;font-weight:600;padding:10px 14px;border-radius:6px;margin:12px 0;"
    "border:2px solid var(--ok)}.verdict.critical{border-color:var(--crit)}.verdict.warning{border-color:var(--warn)}\n"
    ".finding{background:var(--card);border-left:5px solid var(--info);border-radius:4px;padding:8px 12px;"
    "margin:10px 0;break-inside:avoid}.finding.critical{border-left-color:var(--crit)}"
    ".finding.warning{border-left-color:var(--warn)}.finding.ignored{opacity:.7}\n"
    ".sev{font-weight:700;text-transform:uppercase;font-size:12px;margin-right:8px}.ftitle{font-weight:600}"
    ".finding dl{display:grid;grid-template-columns:7em 1fr;gap:2px 10px;margin:6px 0 0}"
    ".finding dt{color:var(--muted)}.finding dd{margin:0}\n"
    "table{border-collapse:collapse;margin:6px "
    "0;font-size:13px;display:block;overflow-x:auto;max-width:100%}th,td{border:1px solid var(--edge);"
    "padding:3px 7px;text-align:left;vertical-align:top}th{background:var(--card)}td.num{text-align:right;"
    "font-variant-numeric:tabular-nums}td{white-space:nowrap}td:last-child{white-space:normal}"
    "#gpu-table td{white-space:normal;min-width:5em}\n"
    ".ev span{display:inline-block;margin-right:14px}.ev b{font-weight:600;color:var(--muted)}\n"
    ".plots{display:flex;flex-wrap:wrap;gap:6px}.gpu{break-inside:avoid}\n"
    "svg.plot{background:var(--bg);border:1px solid var(--edge);border-radius:4px}"
    "svg text{fill:var(--fg);font:10px system-ui,sans-serif}svg .ptitle{font-size:12px;font-weight:600}"
    "svg .tick,svg .legend{fill:var(--muted)}svg .grid{stroke:var(--grid);stroke-width:1}"
    "svg .axis{stroke:var(--muted);fill:none}\n"
    ".line{fill:none;stroke-width:1.6;stroke-linejoin:round}.line.peer{stroke:var(--peer);stroke-width:1}"
    ".band{stroke:none}.band.peer{fill:var(--peer);fill-opacity:.35}"
    ".ref{stroke:var(--c5);stroke-width:1.2;stroke-dasharray:5 3}svg .rlabel{fill:var(--c5)}"
    "svg .slabel{font-size:9px}\n"
    ".c0{stroke:var(--c0)}.c1{stroke:var(--c1)}.c2{stroke:var(--c2)}.c3{stroke:var(--c3)}.c4{stroke:var(--c4)}"
    ".c5{stroke:var(--c5)}.c6{stroke:var(--c6)}.c7{stroke:var(--c7)}"
    ".bar.c0{fill:var(--c0)}.bar.c1{fill:var(--c1)}.bar.c2{fill:var(--c2)}.bar.c3{fill:var(--c3)}"
    ".bar.c4{fill:var(--c4)}.bar.c5{fill:var(--c5)}.bar.c6{fill:var(--c6)}.bar.c7{fill:var(--c7)}"
    ".bar.peer{fill:var(--peer)}\n"
    ".span{fill-opacity:.2}.span.r0{fill:var(--c0)}.span.r1{fill:var(--c1)}.span.r2{fill:var(--c5)}"
    ".span.r3{fill:var(--c3)}.span.r4{fill:var(--c4)}.span.r5{fill:var(--c5)}.span.r6{fill:var(--c1)}"
    ".span.r7{fill:var(--c3)}\n"
    "footer{color:var(--muted);margin-top:30px;font-size:12px}\n"
    "@media print{body{font-size:11px}main{max-width:none;padding:0}a{color:inherit;text-decoration:none}"
    "h2{break-after:avoid}.finding,svg.plot,table{break-inside:avoid}}\n";

void gd_html_begin(FILE *out, const char *title)
{
    fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "img-src data:\">\n<title>",
          out);
    gd_html_text(out, title);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", style);
}

void gd_html_end(FILE *out)
{
    fprintf(out,
            "<footer>gpudoctor %s: this page fetches nothing and runs no script.</footer>\n"
            "</main>\n</body>\n</html>\n",
            GD_VERSION);
}

void gd_html_verdict(FILE *out, const gd_findings *fs, size_t gpus)
{
    size_t c = gd_findings_count(fs, GD_SEV_CRITICAL), w = gd_findings_count(fs, GD_SEV_WARNING),
           i = gd_findings_count(fs, GD_SEV_INFO), ig = gd_findings_ignored(fs);
    const char *cls = c ? "critical" : w ? "warning" : "ok";
    fprintf(out, "<div class=\"verdict %s\" id=\"verdict\">Verdict: %s", cls, c ? "CRITICAL" : w ? "WARNING" : "OK");
    if (c + w + i == 0)
        fprintf(out, " &ndash; no problem found on %zu GPU%s", gpus, gpus == 1 ? "" : "s");
    else
        fprintf(out, " &ndash; %zu critical, %zu warning%s, %zu info", c, w, w == 1 ? "" : "s", i);
    if (ig)
        fprintf(out, ", %zu ignored", ig);
    fputs("</div>\n", out);
}

void gd_html_row(FILE *out, const char *tag, const char *const *cells, size_t n)
{
    fputs("<tr>", out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "<%s>", tag);
        gd_html_text(out, cells[i]);
        fprintf(out, "</%s>", tag);
    }
    fputs("</tr>\n", out);
}

static void evidence(FILE *out, const json_t *ev)
{
    const char *key;
    json_t *v;
    bool any = false;
    json_object_foreach((json_t *)ev, key, v)
    {
        if (strcmp(key, "source") == 0)
            continue;
        if (!any)
            fputs("<dt>evidence</dt><dd class=\"ev\">", out);
        any = true;
        /* In words, as the text report writes it (never JSON): the JSON report has every structure. */
        char buf[8192];
        gd_json_scalar_text(v, buf, sizeof buf);
        fputs("<span><b>", out);
        gd_html_text(out, key);
        fputs("</b> ", out);
        gd_html_text(out, buf);
        fputs("</span> ", out);
    }
    if (any)
        fputs("</dd>\n", out);
    const json_t *src = json_object_get(ev, "source");
    if (json_is_string(src)) {
        fputs("<dt>source</dt><dd><code>", out);
        gd_html_text(out, json_string_value(src));
        fputs("</code></dd>\n", out);
    }
}

static void finding(FILE *out, const gd_finding *x, bool timeline, bool gpu_links)
{
    const char *sev = gd_severity_name(x->severity);
    fprintf(out, "<article class=\"finding %s%s\" data-id=\"", sev, x->ignored ? " ignored" : "");
    gd_html_text(out, x->id);
    fprintf(out, "\"><span class=\"sev\">%s%s</span>", sev, x->ignored ? " (ignored)" : "");
    if (x->gpu == GD_NO_GPU)
        fputs("host", out);
    else if (gpu_links)
        fprintf(out, "<a href=\"#gpu-%d\">GPU %d</a>", x->gpu, x->gpu);
    else
        fprintf(out, "GPU %d", x->gpu);
    fputs(" &middot; <code>", out);
    gd_html_text(out, x->id);
    fputs("</code><div class=\"ftitle\">", out);
    gd_html_text(out, x->title);
    fputs("</div>\n<dl>\n", out);
    evidence(out, x->evidence);
    if (timeline && x->timeline[0]) {
        fputs("<dt>timeline</dt><dd>", out);
        gd_html_text(out, x->timeline);
        fputs("</dd>\n", out);
    }
    if (!isnan(x->impact_pct))
        fprintf(out, "<dt>impact</dt><dd>~%.0f%% of training throughput</dd>\n", x->impact_pct);
    if (x->fix[0]) {
        fputs("<dt>fix</dt><dd>", out);
        gd_html_text(out, x->fix);
        fputs("</dd>\n", out);
    }
    fputs("</dl></article>\n", out);
}

void gd_html_findings(FILE *out, const gd_findings *fs, bool timeline, bool gpu_links)
{
    fputs("<h2 id=\"findings\">Findings</h2>\n", out);
    if (fs->n == 0)
        fputs("<p>None.</p>\n", out);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < fs->n; i++)
            if (fs->v[i].ignored == (pass == 1))
                finding(out, &fs->v[i], timeline, gpu_links);
}

void gd_html_skips(FILE *out, const gd_findings *fs)
{
    fputs("<h2 id=\"not-checked\">Not checked</h2>\n", out);
    if (fs->nskips == 0) {
        fputs("<p>Every check could judge.</p>\n", out);
        return;
    }
    fputs("<table><tr><th>check</th><th>GPU</th><th>because</th></tr>\n", out);
    for (size_t i = 0; i < fs->nskips; i++) {
        const gd_skip *k = &fs->skips[i];
        char gpu[16] = "host";
        if (k->gpu != GD_NO_GPU)
            snprintf(gpu, sizeof gpu, "%d", k->gpu);
        const char *cells[] = {k->check, gpu, k->reason};
        gd_html_row(out, "td", cells, 3);
    }
    fputs("</table>\n", out);
}
