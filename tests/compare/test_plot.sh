#!/usr/bin/env bash
# mmplot with the real gnuplot: every chart kind is drawn as a PNG and an
# SVG that gnuplot wrote (PNG signature, IHDR size as the script asked,
# SVG from GNUPLOT), next to its .gp and .dat; the script redraws alone;
# a clear failure without gnuplot and with nothing to plot.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/gen.sh"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
asan=$TOP/tests/compare/mmplot.asan
if ! command -v gnuplot >/dev/null; then
	skip "mmplot" "gnuplot is not installed (tools/deps.sh build)"
	finish
fi
if [ ! -x "$asan" ]; then
	fail "mmplot sanitizer build" "$asan missing"
	finish
fi

# thpscale-like: fault latency against threads (numeric: a scaling plot),
# backing is not numeric (no scaling plot for it); samples for CDFs.
for side in base:0 new:-40; do
	label=${side%%:*} d=${side#*:}
	mkrun "$t/$label/r" "$label"
	for th in 1 2 4 8; do
		for b in anon file; do
			c="backing=$b;threads=$th"
			addrows "$t/$label/r" thpscale "$c" fault_both ns lower \
				$(seq_vals $((1000 * th + d)) 3 5)
			addrows "$t/$label/r" thpscale "$c" huge_pct pct higher $(seq_vals $((80 - th)) 1 4)
			addrows "$t/$label/r" thpscale "$c" compact_stall count info 3 4 5
		done
		addsamples "$t/$label/r" thpscale "backing=anon;threads=$th" huge \
			$(seq_vals $((2000 + th * 100 + d)) 7 200)
		addsamples "$t/$label/r" thpscale "backing=anon;threads=$th" base \
			$(seq_vals $((300 + d)) 2 200)
	done
	addrows "$t/$label/r" pageout "" loops loops/s higher $(seq_vals $((500 - d)) 2 5)
done

out=$t/plots
ASAN_OPTIONS=detect_leaks=1 "$asan" -o "$out" "$t/base/r" "$t/new/r" >"$t/stdout" 2>"$t/err"
rc=$?
check "mmplot exits 0 (ASan/UBSan build)" [ $rc -eq 0 ]
check "no sanitizer report" eval '! grep -Eq "Sanitizer|runtime error" "$t/err"'

# png_ok NAME: signature, at least 2 kB, IHDR width x height = the .gp's size
png_ok() {
	local f=$out/$1.png sig wh want
	[ -f "$f" ] || return 1
	sig=$(od -An -tx1 -N8 "$f" | tr -d ' \n')
	[ "$sig" = 89504e470d0a1a0a ] || return 1
	[ "$(stat -c %s "$f")" -gt 2000 ] || return 1
	wh=$(od -An -tu1 -j16 -N8 "$f" | awk '{ print ($1*16777216 + $2*65536 + $3*256 + $4) "," ($5*16777216 + $6*65536 + $7*256 + $8) }')
	want=$(sed -n 's/.*pngcairo size \([0-9]*,[0-9]*\).*/\1/p' "$out/$1.gp")
	[ "$wh" = "$want" ]
}
svg_ok() {
	local f=$out/$1.svg
	[ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 2000 ] && grep -q '<svg' "$f" &&
		grep -q 'Produced by GNUPLOT' "$f"
}
chart_ok() {
	local name=$1 what=$2
	if png_ok "$name" && svg_ok "$name" && [ -s "$out/$name.gp" ] && [ -s "$out/$name.dat" ]; then
		pass "$what: $name.png/.svg written by gnuplot, with .gp and .dat"
	else
		fail "$what" "$name: $(ls -l "$out/$name".* 2>&1 | tr '\n' ' ')"
	fi
}
chart_ok 01-thpscale-bars-1 "bars of each metric's mean with CI error bars"
chart_ok 02-pageout-bars-1 "bars for a workload without parameters"
chart_ok 01-thpscale-scale-threads-1-1 "scaling plot over threads (backing=anon)"
chart_ok 01-thpscale-scale-threads-2-1 "scaling plot over threads (backing=file)"
chart_ok 01-thpscale-cdf-1 "latency CDF per label from samples.csv"
chart_ok 00-change-1-new "sorted % change of every judged metric"
check "no scaling plot over a non-numeric key (backing)" \
	eval '[ -z "$(ls "$out" | grep scale-backing)" ]'
check "CDF panels per class in one chart" \
	eval 'grep -q "class huge" "$out/01-thpscale-cdf-1.gp" && grep -q "class base" "$out/01-thpscale-cdf-1.gp"'
check "bars carry 95% CI error bars" grep -q 'histogram errorbars' "$out/01-thpscale-bars-1.gp"
# % change data: fault_both improved by 40 ns of ~1000-8000: positive, significant
check "change chart data: improvements positive and marked significant" \
	eval 'grep -q "\"thpscale:fault_both-anon-1\" [0-9.]* 2263091 # better" "$out/00-change-1-new.dat"'

# plots.md links only to files that exist
missing=$(grep -o '](\([^)]*\))' "$out/plots.md" | sed 's/^](//; s/)$//' |
	while read -r f; do [ -s "$out/$f" ] || echo "$f"; done)
check "plots.md links only files that exist" [ -z "$missing" ]

# A user restyles: the script redraws on its own.
rm -f "$out/01-thpscale-bars-1.png" "$out/01-thpscale-bars-1.svg"
(cd "$out" && gnuplot 01-thpscale-bars-1.gp) 2>"$t/gp.err"
check "gnuplot NAME.gp redraws the chart alone" png_ok 01-thpscale-bars-1

"$asan" --gnuplot /nonexistent/gnuplot -o "$t/p2" "$t/base/r" "$t/new/r" >/dev/null 2>"$t/err"
rc=$?
check "gnuplot missing: exit 1 with a clear message" \
	eval '[ $rc -eq 1 ] && grep -q "gnuplot not found at /nonexistent/gnuplot" "$t/err"'
PATH=/nonexistent "$asan" -o "$t/p3" "$t/base/r" "$t/new/r" >/dev/null 2>"$t/err"
rc=$?
check "gnuplot not in PATH: exit 1 with a clear message" \
	eval '[ $rc -eq 1 ] && grep -q "gnuplot not found in PATH" "$t/err"'
mkrun "$t/e1/r" e1
mkrun "$t/e2/r" e2
"$asan" -o "$t/p4" "$t/e1/r" "$t/e2/r" >/dev/null 2>"$t/err"
rc=$?
check "nothing plottable: exit 2 with a clear message" \
	eval '[ $rc -eq 2 ] && grep -q "nothing plottable" "$t/err"'
finish
