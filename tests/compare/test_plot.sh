#!/usr/bin/env bash
# mmplot with the real gnuplot: every chart kind is drawn as a PNG and an
# SVG that gnuplot wrote (PNG signature, IHDR size as the script asked,
# SVG from GNUPLOT), next to its .gp and .dat; the script redraws alone;
# a clear failure without gnuplot and with nothing to plot. The headline
# chart of each workload shows its evidence (counts 1 -> 0.0001 and 0.5,
# a percentage 0 -> 100) with each NEW side's verdict, exact marked; the %
# change chart holds the evidence and leaves emulated (TCG) times out.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/gen.sh"
t=$(tmpdir)
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
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
# one run a side: its times are judged only with --iterations-as-samples
# (the run as the unit: test_runs.sh), which the charts below need
ASAN_OPTIONS=detect_leaks=1 "$asan" -o "$out" --iterations-as-samples "$t/base/r" "$t/new/r" \
	>"$t/stdout" 2>"$t/err"
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
chart_ok 02-pageout-headline-1 "headline chart of a workload without evidence: what changed"
check "headline without evidence: the title says so" \
	grep -q "pageout: no evidence declared; the metrics that changed significantly" \
	"$out/02-pageout-headline-1.gp"
check "no scaling plot over a non-numeric key (backing)" \
	eval '[ -z "$(ls "$out" | grep scale-backing)" ]'
check "CDF panels per class in one chart" \
	eval 'grep -q "class huge" "$out/01-thpscale-cdf-1.gp" && grep -q "class base" "$out/01-thpscale-cdf-1.gp"'
check "bars carry 95% CI error bars" grep -q 'histogram errorbars' "$out/01-thpscale-bars-1.gp"
# % change data: fault_both improved by 40 ns of ~1000-8000: positive, significant
check "change chart data: improvements positive and marked significant" \
	eval 'grep -q "^\"thpscale:fault_both-anon-1\" [0-9.]* 2263091 # better" "$out/00-change-1-new.dat"'

# The evidence of two patch experiments, both sides in a TCG guest:
# calls_per_migrated_page:lru_add_drain 1.0 -> 0.0001 and 0.5 (no variance),
# referenced_after_migrate_pct 0 -> 100; times there are emulated.
for side in base:0 new:1; do
	label=${side%%:*} d=${side#*:} r=$t/tcg/${side%%:*}/r
	mkrun "$r" "$label" vm=qemu vm_accel=tcg
	for m in 0 50; do
		v=1
		[ "$d" = 1 ] && { [ $m = 0 ] && v=0.0001 || v=0.5; }
		addrows "$r" mlock_mix "mlock_pct=$m" calls_per_migrated_page:lru_add_drain calls lower \
			$v $v $v $v $v
		addrows "$r" mlock_mix "mlock_pct=$m" migrate_ns ns lower \
			$(seq_vals $((100000 * (1 + 9 * d))) 5000 5)
	done
	v=$((100 * d))
	addrows "$r" migrate_ad "size_mb=64" referenced_after_migrate_pct pct higher $v $v $v $v $v
	addrows "$r" migrate_ad "size_mb=64" move_ns ns lower $(seq_vals 50000 300 5)
	printf '%s\n' "schema,workload,metric,role,timed,claim" \
		"1,mlock_mix,calls_per_migrated_page:lru_add_drain,evidence,0,no drain per page" \
		"1,mlock_mix,migrate_ns,context,1," \
		"1,migrate_ad,referenced_after_migrate_pct,evidence,0,accessed bit kept" \
		"1,migrate_ad,move_ns,context,1," >"$r/metrics.csv"
done
o2=$out
out=$t/tcgplots
"$asan" -o "$out" "$t/tcg/base/r" "$t/tcg/new/r" >/dev/null 2>"$t/err"
check "TCG pair: mmplot exits 0" [ $? -eq 0 ]
chart_ok 01-mlock_mix-headline-1 "headline chart of mlock_mix's evidence (counts)"
chart_ok 02-migrate_ad-headline-1 "headline chart of migrate_ad's evidence (percentage)"
hd=$out/01-mlock_mix-headline-1.dat
check "headline data: both cases, base 1 and NEW 0.0001 and 0.5, 'better, exact'" \
	eval 'grep -q "^0 \"0\\\\nbetter, exact\" 1 1 1 \"1\" 0.0001 0.0001 0.0001 \"0.0001\"$" "$hd" &&
	grep -q "^1 \"50\\\\nbetter, exact\" 1 1 1 \"1\" 0.5 0.5 0.5 \"0.5\"$" "$hd"'
check "headline: the emulated time is not in mlock_mix's headline" eval '! grep -q migrate_ns "$out/01-mlock_mix-headline-1.gp"'
check "headline: the claim is in the panel title" grep -q "'no drain per page'" "$out/01-mlock_mix-headline-1.gp"
check "headline data: 0 -> 100, better, exact" \
	grep -q '^0 "all\\nbetter, exact" 0 0 0 "0" 100 100 100 "100"$' "$out/02-migrate_ad-headline-1.dat"
cd=$out/00-change-1-new.dat
check "% change chart: the evidence counts, marked, significant" \
	eval 'grep -q "^\"mlock_mix:calls_per_migrated_page:lru_add_drain-0 \[evidence\] \[exact\]\" 99.99 2263091 # better" "$cd" &&
	grep -q "^\"mlock_mix:calls_per_migrated_page:lru_add_drain-50 \[evidence\] \[exact\]\" 50 2263091 # better" "$cd"'
check "% change chart: 0 -> 100 drawn at the clip, the absolute change named" \
	grep -q '^"migrate_ad:referenced_after_migrate_pct \[evidence\] \[exact\] \[base 0: +100 pct\]" 100 2263091 # better' "$cd"
check "% change chart: emulated times left out, and the title says so" \
	eval '! grep -q "_ns" "$cd" && grep -q "3 emulated (TCG) time(s) left out" "$out/00-change-1-new.gp"'
check "plots.md: each workload's headline section holds its headline chart" \
	eval 'grep -A 1 "^<!-- mmplot:headline mlock_mix -->$" "$out/plots.md" | grep -q "01-mlock_mix-headline-1.png"'
"$asan" --max-plots 3 -o "$t/few" "$t/tcg/base/r" "$t/tcg/new/r" >/dev/null 2>"$t/err"
check "--max-plots: the change and headline charts are drawn first, detail dropped" \
	eval '[ -s "$t/few/01-mlock_mix-headline-1.png" ] && [ -s "$t/few/02-migrate_ad-headline-1.png" ] &&
	[ ! -e "$t/few/01-mlock_mix-bars-1.gp" ] && grep -q "more chart(s) not drawn" "$t/few/plots.md"'
out=$o2

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
