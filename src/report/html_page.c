/* SPDX-License-Identifier: Apache-2.0 */
/* The shared parts of the HTML pages: head, style, verdict, findings. */
#include "html_page.h"

#include "checks/causes.h"
#include "html_escape.h"
#include "text_causes.h"
#include "text_group.h"
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
    ".symptoms{margin-left:28px}.cause{margin:6px 0 14px}\n"
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

void gd_html_verdict_line(FILE *out, const char *word, const char *rest)
{
    const char *cls = strcmp(word, "CRITICAL") == 0 ? "critical" : strcmp(word, "OK") == 0 ? "ok" : "warning";
    fprintf(out, "<div class=\"verdict %s\" id=\"verdict\">Verdict: %s ", cls, word);
    gd_html_text(out, rest);
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

/* One block: one finding, or one cause on several GPUs (text_group.h),
 * with each GPU's evidence in a table. fix: the fix to show, or NULL. */
static void block(FILE *out, const gd_findings *fs, const size_t *m, size_t n, bool timeline, bool gpu_links,
                  const char *fix, const char *mark)
{
    const gd_finding *x = &fs->v[m[0]];
    const char *sev = gd_severity_name(x->severity);
    fprintf(out, "<article class=\"finding %s%s\" data-id=\"", sev, x->ignored ? " ignored" : "");
    gd_html_text(out, x->id);
    fprintf(out, "\"><span class=\"sev\">%s%s</span>", sev, x->ignored ? " (ignored)" : "");
    char where[300];
    gd_text_group_where(fs, m, n, where, sizeof where);
    if (n == 1 && x->gpu != GD_NO_GPU && gpu_links)
        fprintf(out, "<a href=\"#gpu-%d\">GPU %d</a>", x->gpu, x->gpu);
    else
        gd_html_text(out, where);
    fputs(" &middot; <code>", out);
    gd_html_text(out, x->id);
    fputs("</code>", out);
    if (mark)
        gd_html_text(out, mark);
    fputs("<div class=\"ftitle\">", out);
    char head[sizeof x->title + 400];
    gd_text_group_headline(fs, m, n, head, sizeof head);
    gd_html_text(out, head);
    fputs("</div>\n<dl>\n", out);
    if (n == 1) {
        evidence(out, x->evidence);
    } else {
        /* Every GPU's evidence, one row each: the numbers the JSON holds. */
        fputs("<dt>evidence</dt><dd><table><tr><th>GPU</th>", out);
        const char *key;
        json_t *v;
        json_object_foreach(x->evidence, key, v)
        {
            if (strcmp(key, "source") == 0)
                continue;
            fputs("<th>", out);
            gd_html_text(out, key);
            fputs("</th>", out);
        }
        fputs("</tr>\n", out);
        for (size_t i = 0; i < n; i++) {
            fprintf(out, "<tr><td>%d</td>", fs->v[m[i]].gpu);
            json_object_foreach(x->evidence, key, v)
            {
                if (strcmp(key, "source") == 0)
                    continue;
                char buf[512];
                gd_json_scalar_text(json_object_get(fs->v[m[i]].evidence, key), buf, sizeof buf);
                fputs("<td>", out);
                gd_html_text(out, buf);
                fputs("</td>", out);
            }
            fputs("</tr>\n", out);
        }
        fputs("</table></dd>\n", out);
        const json_t *src = json_object_get(x->evidence, "source");
        if (json_is_string(src)) {
            fputs("<dt>source</dt><dd><code>", out);
            gd_html_text(out, json_string_value(src));
            fputs("</code></dd>\n", out);
        }
    }
    if (timeline && x->timeline[0]) {
        fputs("<dt>timeline</dt><dd>", out);
        if (n > 1)
            fprintf(out, "GPU %d: ", x->gpu);
        gd_html_text(out, x->timeline);
        fputs("</dd>\n", out);
    }
    for (size_t i = 0; i < n; i++)
        if (!isnan(fs->v[m[i]].impact_pct)) {
            fputs("<dt>impact</dt><dd>", out);
            for (size_t k = 0, shown = 0; k < n; k++)
                if (!isnan(fs->v[m[k]].impact_pct)) {
                    if (n > 1)
                        fprintf(out, "%sGPU %d ", shown++ ? ", " : "", fs->v[m[k]].gpu);
                    fprintf(out, "~%.0f%%", fs->v[m[k]].impact_pct);
                }
            fputs(" of training throughput</dd>\n", out);
            break;
        }
    if (fix && fix[0]) {
        fputs("<dt>fix</dt><dd>", out);
        gd_html_text(out, fix);
        fputs("</dd>\n", out);
    }
    fputs("</dl></article>\n", out);
}

typedef struct blocks_ctx {
    FILE *out;
    const gd_findings *fs;
    bool timeline, gpu_links, fixes;
    const char *cause_fix, *mark;
} blocks_ctx;

static void one_block(const size_t *m, size_t n, size_t first, void *ud)
{
    const blocks_ctx *c = ud;
    char fix[sizeof c->fs->v[0].fix + 256];
    gd_text_group_fix(c->fs, m, n, fix, sizeof fix);
    /* The cause's first block carries its fix; another, only a fix of its own. */
    bool show = c->fixes && (!c->cause_fix || strcmp(fix, c->cause_fix) != 0 || first == 0);
    block(c->out, c->fs, m, n, c->timeline, c->gpu_links, show ? fix : NULL, c->mark);
}

/* The blocks of set[0..nset), one per group of one id, severity and fix;
 * a fix shown where it is not the cause's (cause_fix, already said). */
static void blocks(FILE *out, const gd_findings *fs, const size_t *set, size_t nset, bool timeline, bool gpu_links,
                   const char *cause_fix, bool fixes, const char *mark)
{
    blocks_ctx c = {out, fs, timeline, gpu_links, fixes, cause_fix, mark};
    gd_text_group_each(fs, set, nset, one_block, &c);
}

void gd_html_findings(FILE *out, const gd_findings *fs, bool timeline, bool gpu_links, bool by_cause)
{
    fputs("<h2 id=\"findings\">Findings</h2>\n", out);
    if (fs->n == 0)
        fputs("<p>None.</p>\n", out);
    if (!by_cause) { /* a fleet's or a trace's: each finding its own card */
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < fs->n; i++)
                if (fs->v[i].ignored == (pass == 1))
                    block(out, fs, &i, 1, timeline, gpu_links, fs->v[i].fix, NULL);
        return;
    }
    gd_grouped_causes c;
    if (gd_group_causes(fs, &c) != 0)
        c = (gd_grouped_causes){0};
    /* Each cause once, ranked, its symptoms nested under it. */
    size_t *m = malloc((fs->n + 1) * sizeof *m);
    for (size_t k = 0; m && k < c.n; k++) {
        const gd_grouped_cause *x = &c.v[k];
        size_t n = 0;
        for (size_t i = 0; i < x->nmembers; i++)
            if (strcmp(fs->v[x->members[i]].id, fs->v[x->members[0]].id) == 0)
                m[n++] = x->members[i];
        char fix[sizeof fs->v[0].fix + 256];
        gd_text_group_fix(fs, m, n, fix, sizeof fix);
        fprintf(out, "<section class=\"cause\" id=\"cause-%zu\">\n", k + 1);
        blocks(out, fs, x->members, x->nmembers, timeline, gpu_links, fix, true, NULL);
        if (x->nsymptoms) {
            fputs("<div class=\"symptoms\"><p class=\"meta\">What this cause explains:</p>\n", out);
            blocks(out, fs, x->symptoms, x->nsymptoms, timeline, gpu_links, NULL, false, " (a symptom)");
            fputs("</div>\n", out);
        }
        fputs("</section>\n", out);
    }
    free(m);
    gd_grouped_causes_free(&c);
    /* The ignored ones last, each on its own. */
    for (size_t i = 0; i < fs->n; i++)
        if (fs->v[i].ignored)
            block(out, fs, &i, 1, timeline, gpu_links, fs->v[i].fix, NULL);
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
