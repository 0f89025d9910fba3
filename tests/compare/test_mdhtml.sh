#!/usr/bin/env bash
# tools/mmcompare/mdhtml (report.md -> report.html), its ASan/UBSan build,
# on hostile input: text from the inputs stays text (escaped), a link
# leaves the report directory or runs nothing, a chart's SVG that could run
# or load something is refused naming the file (exit 1), a missing chart
# too; two charts' ids do not collide; usage errors exit 2. The page of a
# real comparison in a browser: tests/vm/test_report_html.sh.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
md=$TOP/tests/compare/mdhtml.asan
if [ ! -x "$md" ]; then
	fail "mdhtml sanitizer build" "$md missing (make tests/compare/mdhtml.asan)"
	finish
fi
if ! command -v gnuplot >/dev/null; then
	skip "mdhtml" "gnuplot is not installed (tools/deps.sh build)"
	finish
fi
mkdir -p "$t/r/plots"
# two real charts of gnuplot's svg terminal, as mmplot draws them
for n in a b; do
	printf 'set terminal svg size 400,300 dynamic noenhanced\nset output "%s"\nset title "<b>%s</b> & x"\nplot x with points\n' \
		"$t/r/plots/$n.svg" "$n" | gnuplot 2>"$t/gp.err" ||
		{ fail "gnuplot draws a chart" "$(head -n 2 "$t/gp.err")"; finish; }
done

cat >"$t/r/report.md" <<'EOT'
# mmbench report: <script>alert(1)</script> vs b

Files: [CSV](compare.csv), [bad](javascript:alert(1)), [up](../../etc/passwd), [abs](/etc/passwd).

<!-- mmcompare:verdict -->
## Verdict

Verdict: evidence 1 better, 0 worse, 0 unchanged.

| metric | base | new | verdict |
|---|---:|---:|---:|
| *case \| one* | | | |
| a\<img src=x onerror=alert(1)\> | 1.00 | 2.00 | **better** |
| `code <b>` | 1 & 2 | "q" | **worse** |

![chart *a* &lt;1&gt;](plots/a.png)

![chart b](plots/b.png)

- item <i>one</i>
EOT
"$md" "$t/r/report.md" >"$t/out.html" 2>"$t/err"
rc=$?
check "a report with two charts: exit 0" [ $rc -eq 0 ]
check "no sanitizer report" eval '[ -z "$(san_reports "$t/err")" ]'
check "input text stays text: no tag from it, only the page's own" \
	eval '! grep -Eq "<script|<img|<b>|<i>|<[^>]* on[a-z]+=" "$t/out.html" &&
	grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" "$t/out.html" &&
	grep -q "a&lt;img src=x onerror=alert(1)&gt;" "$t/out.html"'
check "links: a relative file is a link; javascript:, .. and / are text" \
	eval 'grep -q "<a href=\"compare.csv\">CSV</a>" "$t/out.html" &&
	[ "$(grep -o "<a href" "$t/out.html" | wc -l)" = 1 ]'
check "tables: header, right-aligned numbers, a case row across the table, better/worse classed" \
	eval 'grep -q "<th>metric</th>" "$t/out.html" &&
	grep -q "<tr class=\"sub\"><td colspan=\"4\"><em>case | one</em></td></tr>" "$t/out.html" &&
	grep -q "<td class=\"r better\"><strong>better</strong></td>" "$t/out.html" &&
	grep -q "<td class=\"r worse\"><strong>worse</strong></td>" "$t/out.html" &&
	grep -q "<td><code>code &lt;b&gt;</code></td>" "$t/out.html"'
check "the verdict line is the highlighted paragraph" \
	grep -q '<p class="verdict">Verdict: evidence 1 better' "$t/out.html"
check "two charts inline, ids prefixed per chart (c1-, c2-), no id twice" \
	eval '[ "$(grep -c "<svg role=\"img\"" "$t/out.html")" = 2 ] &&
	grep -q "id=.c1-gnuplot_canvas" "$t/out.html" && grep -q "id=.c2-gnuplot_canvas" "$t/out.html" &&
	[ -z "$(grep -o "id=[\"'"'"'][^\"'"'"']*" "$t/out.html" | sort | uniq -d)" ] &&
	! grep -q "<?xml" "$t/out.html"'
check "the alt text is the caption and the chart's label" \
	eval 'grep -q "<figcaption>chart <em>a</em> &lt;1&gt;</figcaption>" "$t/out.html" &&
	grep -q "aria-label=\"chart <em>a</em> &lt;1&gt;\"" "$t/out.html"'

# refused charts: each alone in a report; exit 1 naming the file
refuse() {	# NAME SED-EXPR: chart a.svg changed by SED-EXPR is refused
	mkdir -p "$t/x/plots"
	sed "$2" "$t/r/plots/a.svg" >"$t/x/plots/a.svg"
	printf '# r\n\n![a](plots/a.png)\n' >"$t/x/report.md"
	"$md" "$t/x/report.md" >"$t/x/out.html" 2>"$t/x/err"
	local rc=$?
	[ $rc = 1 ] && grep -q "mdhtml: $t/x/plots/a.svg: not a chart" "$t/x/err" &&
		[ -z "$(san_reports "$t/x/err")" ] && ! grep -q '<svg role' "$t/x/out.html" &&
		pass "refused, exit 1 naming the file: $1" ||
		fail "refused: $1" "rc=$rc $(head -n 2 "$t/x/err")"
}
refuse "a <script> element" 's|</svg>|<script>alert(1)</script></svg>|'
refuse "an event attribute (onload=)" 's|<svg |<svg onload="alert(1)" |'
refuse "a link out of the chart (xlink:href=http:...)" "s|xlink:href='#gpPt|xlink:href='http://x/#gpPt|"
refuse "a foreignObject" 's|</svg>|<foreignObject><div/></foreignObject></svg>|'
refuse "an <image>" 's|</svg>|<image href="#x"/></svg>|'
refuse "a style sheet" 's|</svg>|<style>@import url(http://x)</style></svg>|'
refuse "url() outside the chart" "s|<g |<g fill='url(http://x/y)' |"
refuse "no <svg> at all" 's|svg|svx|g'

rm -f "$t/x/plots/a.svg"
"$md" "$t/x/report.md" >/dev/null 2>"$t/x/err"
rc=$?
check "a missing chart: exit 1 naming it" \
	eval '[ $rc = 1 ] && grep -q "mdhtml: $t/x/plots/a.svg: No such file" "$t/x/err"'
"$md" >/dev/null 2>"$t/err"
rc=$?
check "no argument: usage, exit 2" eval '[ $rc = 2 ] && grep -q "^usage: mdhtml" "$t/err"'
"$md" "$t/none.md" >/dev/null 2>"$t/err"
rc=$?
check "an unreadable REPORT.md: exit 2 naming it" \
	eval '[ $rc = 2 ] && grep -q "mdhtml: $t/none.md: No such file" "$t/err"'
finish
