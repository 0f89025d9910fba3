// SPDX-License-Identifier: GPL-2.0
/*
 * mdhtml: report.md -> report.html, one self-contained page.
 *
 *   mdhtml REPORT.md >report.html
 *
 * report.md is the one home of the report's content and order
 * (tools/compare-report assembles it from mmcompare --markdown and
 * mmplot's plots.md); this program turns the markdown those two write into
 * HTML: headings, paragraphs, lists, tables (GitHub's pipe tables),
 * **strong**, *emphasis*, `code`, backslash escapes and relative links.
 * Each chart line `![alt](plots/NAME.png)` becomes the chart's SVG
 * (plots/NAME.svg, drawn by gnuplot's svg terminal) inlined in the page, its
 * element ids prefixed per chart so that the charts' definitions do not
 * collide. No script, no network: the page reads the same with
 * JavaScript off, on a laptop screen and on paper (the CSS below).
 *
 * Everything from the markdown is written as text (escaped); links keep
 * only relative paths of plain characters. A chart whose SVG holds
 * anything that could run (a script, an event attribute, a foreign object,
 * an external reference) is refused: exit 1 naming the file.
 *
 * Exit: 0 written; 1 a chart missing or refused, or a write failed;
 * 2 usage or an unreadable REPORT.md.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exitcodes.h"

#define SVG_MAX (32u << 20)	/* a chart of gnuplot's is well under 1 MiB */

struct page {
	FILE *out;
	const char *dir;	/* REPORT.md's directory: charts are relative to it */
	enum { B_NONE, B_PARA, B_LIST, B_TABLE } block;
	int ncols;
	bool right[64];		/* a table column aligned right (---:) */
	int charts;
	bool verdict_seen;
};

static const char css[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1b1b1b;"
	"max-width:1280px;margin:0 auto;padding:0 1.2em 3em}\n"
	"h1{font-size:1.45em;margin:.8em 0 .3em}\n"
	"h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.8em}\n"
	"h3{font-size:1.05em;margin-top:1.5em}\n"
	"p.verdict{font-size:1.1em;font-weight:600;background:#eef4fb;"
	"border-left:4px solid #2b6cb0;padding:.5em .8em}\n"
	".tw{overflow-x:auto;margin:.6em 0}\n"
	"table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}\n"
	"th,td{border:1px solid #d5d5d5;padding:2px 7px;vertical-align:top;"
	"overflow-wrap:anywhere}\n"
	"th{background:#f1f1f1;text-align:left}\n"
	"td.r,th.r{text-align:right;white-space:nowrap}\n"
	"td.better{color:#17692e}td.worse{color:#b3261e}\n"
	"tr.sub td{background:#fafafa;font-style:italic}\n"
	"figure{margin:.8em 0}\n"
	"figure svg{display:block;width:100%;max-width:900px;height:auto}\n"
	"figcaption{font-size:13px;color:#555}\n"
	"code{font-size:.92em;background:#f3f3f3;padding:0 .2em}\n"
	"@media print{body{max-width:none;font-size:10pt;padding:0}"
	".tw{overflow:visible}table{font-size:7.5pt}"
	"figure,tr{break-inside:avoid}h2,h3{break-after:avoid}figure svg{max-width:15cm}"
	"a{color:inherit;text-decoration:none}p.verdict{background:none}}\n";

/* ------------------------------------------------------------ text */

static void esc_char(FILE *f, char c)
{
	switch (c) {
	case '&': fputs("&amp;", f); break;
	case '<': fputs("&lt;", f); break;
	case '>': fputs("&gt;", f); break;
	case '"': fputs("&quot;", f); break;
	case '\'': fputs("&#39;", f); break;
	default: fputc(c, f);
	}
}

static void esc(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		esc_char(f, s[i]);
}

/* The entities markdown writers put in text (mmplot's alt text): kept. */
static size_t entity(const char *s, size_t n)
{
	static const char *const ok[] = { "&lt;", "&gt;", "&amp;", "&quot;", "&#39;" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strlen(ok[i]) <= n && !strncmp(s, ok[i], strlen(ok[i])))
			return strlen(ok[i]);
	return 0;
}

/* A link target of ours: a relative path of plain characters, no "..". */
static bool href_ok(const char *s, size_t n)
{
	if (!n || s[0] == '/' || memmem(s, n, "..", 2))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._/+-", s[i]))
			return false;
	return true;
}

/* The end of the first unescaped @c in s[from, n), or n. */
static size_t find_unescaped(const char *s, size_t from, size_t n, const char *c)
{
	for (size_t i = from; i < n; i++) {
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (!strncmp(s + i, c, strlen(c)) && i + strlen(c) <= n)
			return i;
	}
	return n;
}

static void inline_md(FILE *f, const char *s, size_t n);

/* [text](href) at s: written as a link and its length returned, else 0. */
static size_t link_md(FILE *f, const char *s, size_t n)
{
	size_t close = find_unescaped(s, 1, n, "](");
	size_t end;

	if (close >= n)
		return 0;
	end = close + 2;
	while (end < n && s[end] != ')')
		end++;
	if (end >= n || !href_ok(s + close + 2, end - close - 2))
		return 0;
	fputs("<a href=\"", f);
	esc(f, s + close + 2, end - close - 2);
	fputs("\">", f);
	inline_md(f, s + 1, close - 1);
	fputs("</a>", f);
	return end + 1;
}

/* A span opened by @mark at s[i] that closes later on: toggle its tag. */
static bool toggle(FILE *f, const char *s, size_t i, size_t n, const char *mark,
		   const char *tag, bool *open)
{
	size_t m = strlen(mark);

	if (!*open && (i + m >= n || s[i + m] == ' ' ||
		       find_unescaped(s, i + m, n, mark) >= n))
		return false;
	fprintf(f, *open ? "</%s>" : "<%s>", tag);
	*open = !*open;
	return true;
}

static void inline_md(FILE *f, const char *s, size_t n)
{
	bool strong = false, em = false, code = false;
	size_t i, k;

	for (i = 0; i < n && s[i]; i++) {
		if (code) {
			if (s[i] == '`')
				code = false, fputs("</code>", f);
			else
				esc_char(f, s[i]);
		} else if (s[i] == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1])) {
			esc_char(f, s[++i]);
		} else if (s[i] == '`' && memchr(s + i + 1, '`', n - i - 1)) {
			code = true, fputs("<code>", f);
		} else if (!strncmp(s + i, "**", 2) && toggle(f, s, i, n, "**", "strong", &strong)) {
			i++;
		} else if (s[i] == '*' && toggle(f, s, i, n, "*", "em", &em)) {
		} else if (s[i] == '[' && (k = link_md(f, s + i, n - i))) {
			i += k - 1;
		} else if (s[i] == '&' && (k = entity(s + i, n - i))) {
			fwrite(s + i, 1, k, f);
			i += k - 1;
		} else {
			esc_char(f, s[i]);
		}
	}
	fputs(code ? "</code>" : "", f);
	fputs(em ? "</em>" : "", f);
	fputs(strong ? "</strong>" : "", f);
}

/* ------------------------------------------------------------ charts */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;

	if (!f)
		return NULL;
	buf = malloc(SVG_MAX + 1);
	if (buf) {
		*len = fread(buf, 1, SVG_MAX + 1, f);
		if (ferror(f) || *len > SVG_MAX) {
			free(buf);
			buf = NULL;
			errno = *len > SVG_MAX ? EFBIG : EIO;
		} else {
			buf[*len] = '\0';
		}
	}
	fclose(f);
	return buf;
}

/* An attribute in a tag that could run or load: on*=, or a reference
 * (href, url()) that does not stay inside the chart ('#'). */
static bool attr_refused(const char *tag, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		const char *p = tag + i;

		if (isspace((unsigned char)p[-1]) && !strncasecmp(p, "on", 2) &&
		    isalpha((unsigned char)p[2]))
			return true;
		if (!strncasecmp(p, "href=", 5) && (i + 6 >= n || p[6] != '#'))
			return true;
		if (!strncasecmp(p, "url(", 4) && (i + 4 >= n || p[4] != '#'))
			return true;
	}
	return false;
}

/*
 * What no chart of gnuplot's holds and an inline SVG must not: elements
 * that run, embed or load (script, foreignObject, a, image, style,
 * animations, declarations), event attributes, outside references. gnuplot
 * writes text as text (&lt;), so only tags are looked at.
 */
static bool svg_refused(const char *svg)
{
	static const char *const bad[] = {
		"script", "foreignobject", "iframe", "object", "embed", "a", "image",
		"animate", "animatemotion", "animatetransform", "set", "style", "handler",
		"listener",
	};
	const char *p = strstr(svg, "<svg");

	while (p && (p = strchr(p, '<'))) {
		const char *name = p + 1 + (p[1] == '/');
		size_t len = strcspn(name, " \t\r\n/>"), n = strcspn(p, ">");

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (len == strlen(bad[i]) && !strncasecmp(name, bad[i], len))
				return true;
		if (!p[n] || *name == '?' || (*name == '!' && strncmp(name, "!--", 3)) ||
		    attr_refused(p, n))
			return true;
		p += n;
	}
	return false;
}

/*
 * The SVG from its root element on, inside tags: ids and references to them
 * prefixed with "cN-"; the root gets role and label.
 */
static void svg_write(struct page *pg, const char *svg, const char *alt, size_t altn)
{
	static const char *const refs[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
	const char *p = strstr(svg, "<svg");
	bool in_tag = false;
	FILE *f = pg->out;

	fprintf(f, "<svg role=\"img\" aria-label=\"");
	inline_md(f, alt, altn);
	fputc('"', f);
	for (p += 4; *p; p++) {
		size_t i, l = 0;

		in_tag = *p == '<' ? true : *p == '>' ? false : in_tag;
		for (i = 0; in_tag && i < sizeof(refs) / sizeof(refs[0]); i++)
			if (!strncmp(p, refs[i], (l = strlen(refs[i]))))
				break;
		if (in_tag && i < sizeof(refs) / sizeof(refs[0])) {
			fprintf(f, "%.*sc%d-", (int)l, p, pg->charts);
			p += l - 1;
		} else {
			fputc(*p, f);
		}
	}
	fputc('\n', f);
}

/* ![alt](plots/NAME.png): the chart's SVG inline, the alt text its caption. */
static int chart(struct page *pg, const char *line)
{
	const char *close = strstr(line, "](");
	const char *end = close ? strchr(close, ')') : NULL;
	char path[4096];
	size_t len = 0;
	char *svg;
	int n;

	if (!end || end - close - 2 < 5 || strncmp(end - 4, ".png", 4) ||
	    !href_ok(close + 2, end - close - 2))
		return 1;
	n = snprintf(path, sizeof(path), "%s/%.*s.svg", pg->dir, (int)(end - close - 6),
		     close + 2);
	if (n < 0 || n >= (int)sizeof(path))
		return 1;
	svg = slurp(path, &len);
	if (!svg || !strstr(svg, "<svg") || strlen(svg) != len || svg_refused(svg)) {
		fprintf(stderr, "mdhtml: %s: %s\n", path, !svg ? strerror(errno) :
			"not a chart of gnuplot's svg terminal (no <svg>, a NUL byte, or "
			"something that could run or load)");
		free(svg);
		return 1;
	}
	pg->charts++;
	fprintf(pg->out, "<figure>\n");
	svg_write(pg, svg, line + 2, close - line - 2);
	fprintf(pg->out, "<figcaption>");
	inline_md(pg->out, line + 2, close - line - 2);
	fprintf(pg->out, "</figcaption>\n</figure>\n");
	free(svg);
	return 0;
}

/* ------------------------------------------------------------ blocks */

static void end_block(struct page *pg)
{
	static const char *const close[] = { "", "</p>\n", "</ul>\n", "</tbody></table></div>\n" };

	fputs(close[pg->block], pg->out);
	pg->block = B_NONE;
}

/* The cells of a table row: between unescaped '|'. */
static int cells(const char *line, const char **from, size_t *len, int max)
{
	size_t n = strlen(line), i = 1, j;
	int k = 0;

	while (n && line[n - 1] == ' ')
		n--;
	if (n > 1 && line[n - 1] == '|' && line[n - 2] != '\\')
		n--;
	while (i < n && k < max) {
		j = find_unescaped(line, i, n, "|");
		from[k] = line + i;
		len[k] = j - i;
		while (len[k] && *from[k] == ' ')
			from[k]++, len[k]--;
		while (len[k] && from[k][len[k] - 1] == ' ')
			len[k]--;
		k++;
		i = j + 1;
	}
	return k;
}

static bool is_rule(const char *line)
{
	return strspn(line, "|-: ") == strlen(line) && strstr(line, "---");
}

/* A cell that is only **better** or **worse**: classed for its colour. */
static const char *cell_class(const struct page *pg, int k, const char *s, size_t n)
{
	if (n == 10 && !strncmp(s, "**better**", n))
		return " class=\"r better\"";
	if (n == 9 && !strncmp(s, "**worse**", n))
		return " class=\"r worse\"";
	return k < 64 && pg->right[k] ? " class=\"r\"" : "";
}

static void table_row(struct page *pg, const char *line, bool head)
{
	const char *from[64];
	size_t len[64];
	int k, n = cells(line, from, len, 64);
	bool sub = !head && n > 1 && len[0] > 2 && from[0][0] == '*' && from[0][1] != '*';

	for (k = 1; sub && k < n; k++)
		sub = !len[k];
	if (head)
		pg->ncols = n;
	if (sub) {	/* a case's title over its rows */
		fprintf(pg->out, "<tr class=\"sub\"><td colspan=\"%d\">", pg->ncols);
		inline_md(pg->out, from[0], len[0]);
		fputs("</td></tr>\n", pg->out);
		return;
	}
	fputs("<tr>", pg->out);
	for (k = 0; k < n; k++) {
		fprintf(pg->out, "<%s%s>", head ? "th" : "td",
			head ? "" : cell_class(pg, k, from[k], len[k]));
		inline_md(pg->out, from[k], len[k]);
		fprintf(pg->out, "</%s>", head ? "th" : "td");
	}
	fputs("</tr>\n", pg->out);
}

/* A table's header row, its rule (alignment) and a row. */
static void table_line(struct page *pg, const char *line, const char *next)
{
	const char *from[64];
	size_t len[64];
	int k, n;

	if (pg->block == B_TABLE) {
		if (!is_rule(line))
			table_row(pg, line, false);
		return;
	}
	end_block(pg);
	n = next && is_rule(next) ? cells(next, from, len, 64) : 0;
	for (k = 0; k < 64; k++)
		pg->right[k] = k < n && len[k] && from[k][len[k] - 1] == ':';
	fputs("<div class=\"tw\"><table><thead>", pg->out);
	table_row(pg, line, n > 0);
	fputs("</thead><tbody>\n", pg->out);
	pg->block = B_TABLE;
}

static void heading(struct page *pg, const char *line)
{
	int level = (int)strspn(line, "#");

	end_block(pg);
	fprintf(pg->out, "<h%d>", level);
	inline_md(pg->out, line + level + 1, strlen(line + level + 1));
	fprintf(pg->out, "</h%d>\n", level);
	if (level == 2 && !strcmp(line, "## Verdict"))
		pg->verdict_seen = true;
}

static void text_line(struct page *pg, const char *line)
{
	bool item = !strncmp(line, "- ", 2);

	if (item) {
		if (pg->block != B_LIST) {
			end_block(pg);
			fputs("<ul>\n", pg->out);
			pg->block = B_LIST;
		}
		fputs("<li>", pg->out);
		inline_md(pg->out, line + 2, strlen(line + 2));
		fputs("</li>\n", pg->out);
		return;
	}
	if (pg->block != B_PARA) {
		end_block(pg);
		fputs(pg->verdict_seen && !strncmp(line, "Verdict:", 8) ?
		      "<p class=\"verdict\">" : "<p>", pg->out);
		pg->block = B_PARA;
	} else {
		fputc('\n', pg->out);
	}
	inline_md(pg->out, line, strlen(line));
}

/* One line of the markdown; @next is the line after it (NULL at the end). */
static int md_line(struct page *pg, const char *line, const char *next)
{
	if (!*line || (!strncmp(line, "<!-- ", 5) && strstr(line, " -->"))) {
		end_block(pg);	/* a blank line, or a section marker of ours */
		return 0;
	}
	if (line[0] == '#' && strspn(line, "#") <= 3 && line[strspn(line, "#")] == ' ') {
		heading(pg, line);
	} else if (line[0] == '|') {
		table_line(pg, line, next);
	} else if (!strncmp(line, "![", 2) && line[strlen(line) - 1] == ')') {
		end_block(pg);
		return chart(pg, line);
	} else {
		text_line(pg, line);
	}
	return 0;
}

/* ------------------------------------------------------------ page */

static void page_head(FILE *f, const char *title)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<title>");
	inline_md(f, title, strlen(title));
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", css);
}

static char **read_lines(FILE *in, size_t *n)
{
	char **l = NULL, *s = NULL;
	size_t cap = 0, sz = 0;
	ssize_t r;

	*n = 0;
	while ((r = getline(&s, &sz, in)) >= 0) {
		while (r && (s[r - 1] == '\n' || s[r - 1] == '\r'))
			s[--r] = '\0';
		if (*n == cap) {
			char **m = realloc(l, (cap = cap ? 2 * cap : 256) * sizeof(*l));

			if (!m)
				break;
			l = m;
		}
		l[(*n)++] = s;
		s = NULL;
		sz = 0;
	}
	free(s);
	return l;
}

int main(int argc, char **argv)
{
	struct page pg = { .out = stdout };
	char **lines, *dir;
	size_t n, i;
	int rc = 0;
	FILE *in;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: mdhtml REPORT.md >report.html\n"
			"  charts (![alt](plots/NAME.png)) are inlined from plots/NAME.svg beside "
			"REPORT.md\n");
		return argc == 2 && !strcmp(argv[1], "--help") ? MM_PASS : MM_USAGE;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		fprintf(stderr, "mdhtml: %s: %s\n", argv[1], strerror(errno));
		return MM_USAGE;
	}
	lines = read_lines(in, &n);
	fclose(in);
	dir = strdup(argv[1]);
	if (!dir || (n && !lines))
		return MM_FAIL;
	pg.dir = strrchr(dir, '/') ? (*strrchr(dir, '/') = '\0', dir) : ".";
	page_head(pg.out, n && !strncmp(lines[0], "# ", 2) ? lines[0] + 2 : "mmbench report");
	for (i = 0; i < n; i++)
		rc |= md_line(&pg, lines[i], i + 1 < n ? lines[i + 1] : NULL);
	end_block(&pg);
	fputs("</main>\n</body>\n</html>\n", pg.out);
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(dir);
	if (fflush(pg.out) || ferror(pg.out)) {
		fprintf(stderr, "mdhtml: writing the page: %s\n", strerror(errno));
		return MM_FAIL;
	}
	return rc ? MM_FAIL : MM_PASS;
}
