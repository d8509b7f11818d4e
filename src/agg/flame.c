// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agg/flame.h"
#include "agg/format.h"
#include "lib/util.h"

#define FLAME_W 1200  /* the frames' width, in pixels */
#define FRAME_H 16    /* one frame's height */
#define PAD_X 10      /* left and right */
#define PAD_TOP 44    /* the title and the controls */
#define PAD_BOTTOM 30 /* the details line */
#define MIN_PX 0.1    /* narrower frames, and all above them, are left out */
#define CHAR_PX 7     /* of the 12px labels: a label shows what fits */
#define LABEL_MAX 256 /* longest label */

struct fnode {
	char *name;
	uint64_t count;
	int first_child, next; /* -1: none */
};

struct flame {
	struct fnode *nodes; /* [0]: the root, "all" */
	size_t nr, cap;
	int cur;      /* the walk: the frame the next one goes above */
	uint64_t add; /* the row's samples */
	int depth;    /* the row's frames so far */
	bool oom;
};

static int new_node(struct flame *fl, const char *name)
{
	struct fnode *n;

	if (!grow_array(&fl->nodes, &fl->cap, fl->nr, sizeof(*fl->nodes), 256))
		return -1;
	n = &fl->nodes[fl->nr];
	n->name = strdup(name);
	n->count = 0;
	n->first_child = n->next = -1;
	return n->name ? (int)fl->nr++ : -1;
}

/* parent's child named name, made where there is none; siblings stay in name order. */
static int child_of(struct flame *fl, int parent, const char *name)
{
	int prev = -1, c = fl->nodes[parent].first_child, cmp = 1, made;

	while (c >= 0 && (cmp = strcmp(fl->nodes[c].name, name)) < 0) {
		prev = c;
		c = fl->nodes[c].next;
	}
	if (c >= 0 && cmp == 0)
		return c;
	made = new_node(fl, name);
	if (made < 0)
		return -1;
	fl->nodes[made].next = c;
	if (prev < 0)
		fl->nodes[parent].first_child = made;
	else
		fl->nodes[prev].next = made;
	return made;
}

static void on_frame(void *ctx, const char *name)
{
	struct flame *fl = ctx;

	if (fl->oom)
		return;
	fl->cur = child_of(fl, fl->cur, name);
	if (fl->cur < 0) {
		fl->oom = true;
		return;
	}
	fl->nodes[fl->cur].count += fl->add;
	fl->depth++;
}

static int build(struct flame *fl, struct agg_table *const *tables, int nr)
{
	int i, j;

	if (new_node(fl, "all") < 0)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		for (j = 0; j < tables[i]->nr_rows && !fl->oom; j++) {
			const struct agg_row *r = &tables[i]->rows[j];

			fl->cur = 0;
			fl->depth = 0;
			fl->add = r->count;
			fl->nodes[0].count += r->count;
			agg_row_folded(tables[i], r, on_frame, fl);
			if (!fl->depth)
				on_frame(fl, tables[i]->func);
		}
	}
	return fl->oom ? -ENOMEM : 0;
}

static int max_depth(const struct flame *fl, int i, double px)
{
	int c, d, best = 0;

	for (c = fl->nodes[i].first_child; c >= 0; c = fl->nodes[c].next) {
		if (fl->nodes[c].count * px < MIN_PX)
			continue;
		d = max_depth(fl, c, px) + 1;
		best = d > best ? d : best;
	}
	return best;
}

static void put_xml(FILE *f, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(s[i], f);
		}
	}
}

/* What of name fits a frame w pixels wide: all of it, a start and "..", or nothing. */
static void put_label(FILE *f, const char *name, double w)
{
	long fits = (long)((w - 6) / CHAR_PX);
	size_t len = strlen(name);

	if (fits < 3)
		return;
	if (len <= (size_t)fits && len <= LABEL_MAX) {
		put_xml(f, name, len);
		return;
	}
	put_xml(f, name, fits - 2 < LABEL_MAX ? (size_t)fits - 2 : LABEL_MAX);
	fputs("..", f);
}

/* A warm color a name keeps from run to run (FNV-1a of it). */
static void put_color(FILE *f, const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	fprintf(f, "rgb(%u,%u,%u)", 205 + h % 51, (h >> 8) % 231, (h >> 16) % 56);
}

struct draw {
	FILE *f;
	double px; /* pixels a sample */
	int top;   /* the deepest frame's depth */
	uint64_t total;
};

static void draw_node(const struct draw *d, const struct flame *fl, int i, double x, int depth)
{
	const struct fnode *n = &fl->nodes[i];
	double w = n->count * d->px, cx = x;
	int c;

	if (w < MIN_PX)
		return;
	fputs("<g class=\"f\"><title>", d->f);
	put_xml(d->f, n->name, SIZE_MAX);
	fprintf(d->f, " (%llu samples, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" ",
		(unsigned long long)n->count, d->total ? 100.0 * n->count / d->total : 0.0, x,
		PAD_TOP + (d->top - depth) * FRAME_H, w);
	fprintf(d->f, "height=\"%d\" rx=\"2\" ry=\"2\" fill=\"", FRAME_H - 1);
	put_color(d->f, n->name);
	fprintf(d->f, "\"/><text x=\"%.1f\" y=\"%d\">", x + 3,
		PAD_TOP + (d->top - depth) * FRAME_H + FRAME_H - 4);
	put_label(d->f, n->name, w);
	fputs("</text></g>\n", d->f);
	for (c = n->first_child; c >= 0; c = fl->nodes[c].next) {
		draw_node(d, fl, c, cx, depth + 1);
		cx += fl->nodes[c].count * d->px;
	}
}

/*
 * The page's behaviour, written for ksnoop: frames are read back from the
 * drawing (title, rect) at load; a zoom lays them out again from those.
 */
static const char script[] =
	"var F = [], X0 = "
	"10"
	", W = "
	"1200"
	", details, matched, resetBtn;\n"
	"function label(f, w) {\n"
	"  var n = Math.floor((w - 6) / 7);\n"
	"  if (n < 3) return '';\n"
	"  return f.name.length <= n ? f.name : f.name.substring(0, n - 2) + '..';\n"
	"}\n"
	"function place(f, x, w, shown, dim) {\n"
	"  f.g.style.display = shown ? '' : 'none';\n"
	"  f.g.style.opacity = dim ? '0.5' : '';\n"
	"  if (!shown) return;\n"
	"  f.r.setAttribute('x', x.toFixed(1));\n"
	"  f.r.setAttribute('width', w.toFixed(1));\n"
	"  f.t.setAttribute('x', (x + 3).toFixed(1));\n"
	"  f.t.textContent = label(f, w);\n"
	"}\n"
	"function zoom(z) {\n"
	"  var e = 0.05;\n"
	"  F.forEach(function (f) {\n"
	"    if (f.y > z.y) {\n"
	"      var under = f.x <= z.x + e && f.x + f.w >= z.x + z.w - e;\n"
	"      place(f, X0, W, under, true);\n"
	"    } else {\n"
	"      var inside = f.x >= z.x - e && f.x + f.w <= z.x + z.w + e;\n"
	"      place(f, X0 + (f.x - z.x) * W / z.w, f.w * W / z.w, inside, false);\n"
	"    }\n"
	"  });\n"
	"  resetBtn.style.display = '';\n"
	"  document.documentElement.setAttribute('data-zoom', z.name);\n"
	"}\n"
	"function reset() {\n"
	"  F.forEach(function (f) { place(f, f.x, f.w, true, false); });\n"
	"  resetBtn.style.display = 'none';\n"
	"  document.documentElement.removeAttribute('data-zoom');\n"
	"}\n"
	"function search(text) {\n"
	"  var re, hits = [], sum = 0, total = 0;\n"
	"  try { re = new RegExp(text); } catch (err) { matched.textContent = 'not a regular expression'; return; }\n"
	"  F.forEach(function (f) {\n"
	"    var hit = text !== '' && re.test(f.name);\n"
	"    f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
	"    if (hit) hits.push(f);\n"
	"    if (f.w > total) total = f.w;\n"
	"  });\n"
	"  hits.sort(function (a, b) { return b.y - a.y; });\n"
	"  var kept = [];\n"
	"  hits.forEach(function (h) {\n"
	"    var under = kept.some(function (k) { return h.x >= k.x - 0.05 && h.x + h.w <= k.x + k.w + 0.05; });\n"
	"    if (!under) { kept.push(h); sum += h.w; }\n"
	"  });\n"
	"  var pct = total ? 100 * sum / total : 0;\n"
	"  matched.textContent = text === '' ? '' : 'Matched: ' + pct.toFixed(2) + '%';\n"
	"  document.documentElement.setAttribute('data-matched', pct.toFixed(2));\n"
	"}\n"
	"function fromHash() {\n"
	"  var h = decodeURIComponent(location.hash.substring(1));\n"
	"  if (h.indexOf('search=') === 0) search(h.substring(7));\n"
	"  if (h.indexOf('zoom=') === 0) {\n"
	"    var best = null, name = h.substring(5);\n"
	"    F.forEach(function (f) { if (f.name === name && (!best || f.w > best.w)) best = f; });\n"
	"    if (best) zoom(best);\n"
	"  }\n"
	"}\n"
	"function init() {\n"
	"  details = document.getElementById('details');\n"
	"  matched = document.getElementById('matched');\n"
	"  resetBtn = document.getElementById('reset');\n"
	"  var gs = document.querySelectorAll('g.f');\n"
	"  for (var i = 0; i < gs.length; i++) {\n"
	"    var g = gs[i], r = g.querySelector('rect'), t = g.querySelector('title').textContent;\n"
	"    var f = { g: g, r: r, t: g.querySelector('text'), fill: r.getAttribute('fill'),\n"
	"              name: t.substring(0, t.lastIndexOf(' (')), tip: t,\n"
	"              x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y') };\n"
	"    F.push(f);\n"
	"    g.addEventListener('click', zoom.bind(null, f));\n"
	"    g.addEventListener('mouseover', function () { details.textContent = this.tip; }.bind(f));\n"
	"    g.addEventListener('mouseout', function () { details.textContent = ''; });\n"
	"  }\n"
	"  resetBtn.addEventListener('click', reset);\n"
	"  document.getElementById('search').addEventListener('click', function () {\n"
	"    var text = prompt('Search frames (a regular expression)', '');\n"
	"    if (text !== null) search(text);\n"
	"  });\n"
	"  fromHash();\n"
	"  window.addEventListener('hashchange', fromHash);\n"
	"}\n";

_Static_assert(FLAME_W == 1200 && PAD_X == 10 && CHAR_PX == 7,
	       "the script's W, X0 and label width are the drawing's");

static void put_head(FILE *f, int height, const char *title)
{
	fprintf(f,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init()\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
		"g.f { cursor: pointer; } g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
		".ctl { cursor: pointer; fill: #333; } #title { font-size: 17px; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f4e8\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
		FLAME_W + 2 * PAD_X, height, FLAME_W + 2 * PAD_X, height, FLAME_W / 2 + PAD_X);
	put_xml(f, title, 200);
	fprintf(f,
		"</text>\n"
		"<text id=\"reset\" class=\"ctl\" x=\"%d\" y=\"24\" style=\"display:none\">Reset "
		"Zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%d\" y=\"24\" "
		"text-anchor=\"end\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
		PAD_X, FLAME_W + PAD_X, PAD_X, height - 10, FLAME_W + PAD_X, height - 10, script);
}

int flame_write_svg(FILE *f, struct agg_table *const *tables, int nr, const char *title)
{
	struct flame fl = {};
	struct draw d = { .f = f };
	size_t i;
	int err;

	err = build(&fl, tables, nr);
	if (!err) {
		d.total = fl.nodes[0].count;
		d.px = d.total ? (double)FLAME_W / d.total : 0;
		d.top = max_depth(&fl, 0, d.px);
		put_head(f, PAD_TOP + (d.top + 1) * FRAME_H + PAD_BOTTOM, title);
		if (d.total)
			draw_node(&d, &fl, 0, PAD_X, 0);
		fputs("</svg>\n", f);
	}
	for (i = 0; i < fl.nr; i++)
		free(fl.nodes[i].name);
	free(fl.nodes);
	return err;
}
