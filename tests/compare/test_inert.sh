#!/usr/bin/env bash
# Hostile strings in result files never run as commands (issue 17, item 1).
# Labels, workload names, case strings, units, sample classes, claims, host
# names and kernel releases carrying backquotes, $(...), system("..."),
# quotes of both kinds, newlines, carriage returns, @macros, backslashes,
# '#', markdown and very long text go through mmplot (ASan/UBSan build),
# ./run.sh compare (tools/compare-report) and mmtrend: no canary file is
# ever created, the charts still render, no script or data file holds a
# backquote or a macro, report.md names only files that exist.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir)
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT	# KEEP=1: look at it afterwards
asan=$TOP/tests/compare/mmplot.asan
if ! command -v gnuplot >/dev/null; then
	skip "inert strings" "gnuplot is not installed (tools/deps.sh build)"
	finish
fi
if [ ! -x "$asan" ]; then
	fail "mmplot sanitizer build" "$asan missing"
	finish
fi
C=$t/CANARY	# the absolute canary; relative ones land in gnuplot's directory

# No canary anywhere under the test directory (absolute or relative);
# any found is removed, so that each stage answers for itself.
no_canary() {
	local found
	found=$(find "$t" -name 'CANARY*' -print)
	[ -z "$found" ] && return 0
	echo "canary files: $found" >&2
	rm -f $found
	return 1
}

# --- what gnuplot itself does: the premise of tools/mmcompare/gptext.h
mkdir -p "$t/gp" && cd "$t/gp" || exit 1
printf '%s\n' 'x = '"'"'`touch GPSQ`'"'" 'print x' >sq.gp
printf '%s\n' 'x = "`touch GPDQ`"' 'print x' >dq.gp
gnuplot sq.gp >/dev/null 2>&1
check "gnuplot: backquotes inside single quotes do not run" test ! -e GPSQ
gnuplot dq.gp >/dev/null 2>&1
if [ -e GPDQ ]; then
	pass "gnuplot: backquotes inside double quotes run (the hazard every string is filtered for)"
else
	skip "gnuplot: backquotes inside double quotes" "this gnuplot does not run them"
fi
cd "$TOP" || exit 1

# --- result sets with hostile strings (CSV-quoted as a writer would)
q() { local s=${1//\"/\"\"}; printf '"%s"' "$s"; }
# mkrun DIR LABEL [KEY=VALUE...]
mkrun() {
	local d=$1 l=$2 kv
	shift 2
	mkdir -p "$d" || return 1
	{
		echo key,value
		echo schema,1
		echo "run_id,$(basename "$d")"
		echo "label,$(q "$l")"
		echo "start_time,2025-01-01T00:00:00Z"
		echo "kernel_release,$(q "$l")"
		echo cpus,2
		echo "cpu_model,Test CPU"
		echo numa_nodes,1
		echo thp_enabled,madvise
		echo swap_total_kb,0
		echo vm,none
		for kv; do echo "${kv%%=*},$(q "${kv#*=}")"; done
	} >"$d/meta.csv"
	echo "schema,run_id,label,kernel,workload,case,iteration,metric,value,unit,better" \
		>"$d/results.csv"
	echo "schema,workload,metric,role,timed,claim" >"$d/metrics.csv"
}
# addrows DIR LABEL WORKLOAD CASE METRIC UNIT BETTER V...
addrows() {
	local d=$1 l=$2 wl=$3 c=$4 m=$5 u=$6 b=$7 v i=0
	shift 7
	for v; do
		echo "1,${d##*/},$(q "$l"),k,$(q "$wl"),$(q "$c"),$i,$m,$v,$(q "$u"),$b"
		i=$((i + 1))
	done >>"$d/results.csv"
}
# adddecl DIR WORKLOAD METRIC ROLE TIMED CLAIM
adddecl() { echo "1,$(q "$2"),$3,$4,$5,$(q "$6")" >>"$1/metrics.csv"; }
# addsamples DIR LABEL WORKLOAD CASE CLASS V...
addsamples() {
	local d=$1 l=$2 wl=$3 c=$4 k=$5 v
	shift 5
	[ -f "$d/samples.csv" ] ||
		echo "schema,run_id,label,kernel,workload,case,iteration,task,class,value_ns" \
			>"$d/samples.csv"
	for v; do echo "1,${d##*/},$(q "$l"),k,$(q "$wl"),$(q "$c"),0,0,$(q "$k"),$v"; done \
		>>"$d/samples.csv"
}

long=$(printf 'L%.0s' {1..400})
labels=(
	'b`touch CANARY`'
	"n\`touch $C-1\`"
	'$(touch CANARY)'
	'x");system("touch CANARY");print("'
	"x');system('touch CANARY');print('"
	$'nl\nsystem("touch CANARY")'
	$'cr\rsystem("touch CANARY")'
	'@GPVAL_TERM @m `touch CANARY`'
	'bs\\"; system("touch CANARY") #\'
	'[link](nofile) <b>*x*|y` touch CANARY`'
	"$long\`touch CANARY\`"
	'#c `touch CANARY`'
)
wl='wl`touch CANARY`";system("touch CANARY")'
kase1='k=`touch CANARY`;n=1'
kase2='k=`touch CANARY`;n=2'
unit="us\`touch $C-u\`"
claim=$'claim `touch CANARY`\n system("touch CANARY")'
klass='cls`touch CANARY`'
for i in "${!labels[@]}"; do
	d=$t/in/side$i
	l=${labels[$i]}
	mkrun "$d" "$l"
	addrows "$d" "$l" "$wl" "$kase1" ev_pct pct higher $((i * 5)) $((i * 5)) $((i * 5))
	addrows "$d" "$l" "$wl" "$kase2" ev_pct pct higher $((i * 7)) $((i * 7)) $((i * 7))
	addrows "$d" "$l" "$wl" "$kase1" lat "$unit" lower $((1000 - i)) $((1010 - i)) $((1020 - i))
	addrows "$d" "$l" "$wl" "$kase2" lat "$unit" lower $((2000 - i)) $((2010 - i)) $((2020 - i))
	addrows "$d" "$l" migrate_ad "size_mb=8" calls_per_page:f calls lower 1 1 1
	adddecl "$d" "$wl" ev_pct evidence 0 "$claim"
	adddecl "$d" "$wl" lat context 1 ""
	addsamples "$d" "$l" "$wl" "$kase1" "$klass" $(seq 100 10 300)
done
# One label directory (under a results root) named by a hostile label too.
lab='r`touch CANARY`$(touch CANARY)'
mkdir -p "$t/results/$lab" && cp -r "$t/in/side1" "$t/results/$lab/run1"

# --- mmplot
out=$t/plots
ASAN_OPTIONS=detect_leaks=1 "$asan" -o "$out" "$t"/in/side* >"$t/stdout" 2>"$t/err"
rc=$?
check "mmplot with hostile strings exits 0" [ $rc -eq 0 ]
check "no sanitizer report" eval '! grep -Eq "Sanitizer|runtime error" "$t/err"'
check "mmplot: no command ran (no canary file)" no_canary

png_ok() {
	local f=$1
	[ -f "$f" ] && [ "$(od -An -tx1 -N8 "$f" | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$f")" -gt 2000 ]
}
svg_ok() { [ -s "$1" ] && grep -q 'Produced by GNUPLOT' "$1"; }
n_change=$(ls "$out"/00-change-*.png 2>/dev/null | wc -l)
check "a % change chart per NEW label (11), each a real PNG" \
	eval '[ "$n_change" -eq 11 ] && for f in "$out"/00-change-*.png; do png_ok "$f" || exit 1; done'
hl=$(ls "$out"/*-headline-1.png 2>/dev/null | head -n 1)
check "the headline chart renders (PNG and SVG by gnuplot)" \
	eval '[ -n "$hl" ] && png_ok "$hl" && svg_ok "${hl%.png}.svg"'
check "bars, scaling and CDF charts render" \
	eval 'png_ok "$(ls "$out"/*-bars-1.png | head -n 1)" &&
	png_ok "$(ls "$out"/*-scale-n-1-1.png | head -n 1)" &&
	png_ok "$(ls "$out"/*-cdf-1.png | head -n 1)"'
check "the filtered label is in the chart (text kept, quotes gone)" \
	grep -q "title 'x_);system(_touch CANARY_);print(_'" "$out"/*-headline-1.gp
check "no backquote, @ or \$( in any of the $(ls "$out"/*.gp 2>/dev/null | wc -l) scripts and data files" \
	eval '[ -n "$(ls "$out"/*.gp 2>/dev/null)" ] &&
	! grep -l -e "\`" -e "@" -e "\$(" "$out"/*.gp "$out"/*.dat >&2'
check "a 400-character label is cut to 60 characters and '...' in a key" \
	cat "$out"/*.gp | grep -q "title 'L\{60\}\.\.\.'"
check "only charts, plots.md and gnuplot.log in the output directory" \
	eval '[ -s "$out/plots.md" ] && [ -z "$(ls "$out" | grep -Ev "\.(gp|dat|png|svg)$|^plots\.md$|^gnuplot\.log$")" ]'
check "plots.md: every marker whole on one line" \
	eval 'grep -q "^<!-- mmplot:headline " "$out/plots.md" && ! grep "mmplot:" "$out/plots.md" |
	grep -Ev "^<!-- mmplot:[a-z]+( [A-Za-z0-9._:=+-]+)? -->$"'
missing=$(grep -o '](\([^)]*\))' "$out/plots.md" | sed 's/^](//; s/)$//' |
	while read -r f; do [ -s "$out/$f" ] || echo "$f"; done)
check "plots.md links only files that exist" \
	eval '[ -z "$missing" ] && grep -q "](.*png)" "$out/plots.md"'
# A user redraws a chart: still nothing runs.
(cd "$out" && gnuplot "$(basename "${hl%.png}").gp" && gnuplot 00-change-3-*.gp) 2>"$t/gp.err"
check "gnuplot NAME.gp redraws alone, and runs nothing" eval 'png_ok "$hl" && no_canary'

# --- ./run.sh compare (tools/compare-report): plots, report.md, directory
export MMBENCH_RESULTS=$t/results
entry=$TOP/tools/compare-report
grep -q 'compare-report' "$TOP/run.sh" 2>/dev/null && entry="$TOP/run.sh compare"
$entry "$t/in/side0" "$lab" "$t/in/side3" "$t/in/side5" >"$t/rout" 2>"$t/rerr"
rc=$?
check "./run.sh compare with hostile labels exits 0" [ $rc -eq 0 ]
check "./run.sh compare: no command ran (no canary file)" no_canary
dir=$(dirname "$(sed -n 's/^report: //p' "$t/rout")")
check "report directory name: [A-Za-z0-9._+-] only, within NAME_MAX" \
	eval '[ -d "$dir" ] && [[ "$(basename "$dir")" =~ ^compare-[A-Za-z0-9._+-]+-[0-9]{8}-[0-9]{6}(-[0-9]+)?$ ]] &&
	[ "$(basename "$dir" | wc -c)" -le 255 ]'
md=$dir/report.md
check "report.md title: filtered labels" \
	eval 'head -n 1 "$md" | grep -Eq "^# mmbench report: [A-Za-z0-9 ._,:;=+/%-]+$"'
check "report.md has the headline chart and the % change chart" \
	eval 'grep -q "^!\[.*: the evidence\](plots/.*-headline-1.png)" "$md" &&
	grep -q "^!\[% change of " "$md"'
links=$(grep -o '](\([^)]*\))' "$md" | sed 's/^](//; s/)$//' | sort -u)
missing=$(while read -r f; do [ -n "$f" ] && [ ! -s "$dir/$f" ] && echo "$f"; done <<<"$links")
check "report.md links only files that exist (a label '[link](nofile)' is no link)" \
	eval '[ -z "$missing" ] && [ "$(wc -l <<<"$links")" -gt 10 ]'
# A label that is a very long name: the directory name is cut, not refused.
$entry --no-plots "$t/in/side0" "$t/in/side10" >/dev/null 2>&1
rc=$?
d2=$(ls -td "$t"/results/compare-* | head -n 1)
check "a 400-character label: report written, directory name cut" \
	eval '[ $rc -eq 0 ] && [ "$(basename "$d2" | wc -c)" -le 255 ] && no_canary'

# --- mmtrend: host, kernel release, case, unit in its charts
MMTREND=$TOP/tools/mmtrend/mmtrend-san
[ -x "$MMTREND" ] || MMTREND=$TOP/tools/mmtrend/mmtrend
MMSYNTH=$TOP/tools/mmtrend/mmsynth
MMHISTORY=$TOP/tools/mmtrend/mmhistory
if [ -x "$MMTREND" ] && [ -x "$MMSYNTH" ] && [ -x "$MMHISTORY" ]; then
	h=$t/hist
	for day in 1 2 3 4; do
		lab=base
		[ "$day" -gt 2 ] && lab=nightly
		s=2026110$day-020000
		"$MMSYNTH" -o "$h/$lab/$s-h1" --label $lab --host h1 --kernel "6.1.0-$day" \
			--stamp "$s" --seed "$day" -i 5 \
			--line "pageout instances=1 loop_time ns lower $((5000 + day * 300)) 50" \
			>/dev/null || fail "mmsynth night $day"
		# hostile case and unit in the results, kernel and host in the history
		awk -v c="instances=1;x=\`touch $C-c\`" -v u="ns\`touch CANARY\`" -F, -v OFS=, '
			NR > 1 { $6 = "\"" c "\""; $10 = "\"" u "\"" } { print }' \
			"$h/$lab/$s-h1/results.csv" >"$t/r.csv" && mv "$t/r.csv" "$h/$lab/$s-h1/results.csv"
		"$MMHISTORY" append "$h/history.csv" "date=2026-11-0${day}T02:00:00Z" \
			"host=h1" "label=$lab" "kernel=6.1.0-\`touch $C-k\`-$day" \
			"run_dir=$lab/$s-h1" status=ok duration_s=60 || fail "history night $day"
	done
	"$MMTREND" "$h" --baseline base >"$t/tout" 2>&1
	rc=$?
	check "mmtrend with hostile strings: charts drawn (exit 0 or 3, got $rc)" \
		eval '[ $rc -eq 0 ] || [ $rc -eq 3 ]'
	check "mmtrend: no command ran (no canary file)" no_canary
	check "mmtrend: the chart renders, with the filtered kernel release" \
		eval 'svg_ok "$h/trends/pageout-loop_time.svg" &&
		grep -q ">6.1.0-_touch [^<]*CANARY-k_-1 2026-11-01 02:00<" "$h/trends/pageout-loop_time.svg"'
	check "mmtrend: no backquote or @ in its script" \
		eval '[ -s "$h/trends/pageout-loop_time.gp" ] && ! grep -q -e "\`" -e "@" "$h/trends/pageout-loop_time.gp"'
else
	skip "mmtrend hostile strings" "mmtrend, mmsynth or mmhistory not built"
fi

# ---- terminal escapes: an ESC or BEL in a workload name, a case string, a
# unit or a meta.csv value never reaches the text views, the markdown or
# the TSV summary raw (each control byte shows as '?')
. "$TOP/tests/compare/gen.sh"
e=$(printf '\033')
b=$(printf '\007')
mkrun "$t/esc/base/b1" base
mkrun "$t/esc/new/n1" new
printf 'cpu_flags,"x%s[31my%s"\n' "$e" "$b" >>"$t/esc/base/b1/meta.csv"
addrows "$t/esc/base/b1" "w${e}[2Jl" "size=${e}[31m1${b}" loops "l${e}[5m" higher 10 11 12
addrows "$t/esc/new/n1" "w${e}[2Jl" "size=${e}[31m1${b}" loops "l${e}[5m" higher 13 14 15
"$MMCOMPARE" --all "$t/esc/base" "$t/esc/new" >"$t/esc.txt" 2>&1
"$MMCOMPARE" --markdown "$t/esc/base" "$t/esc/new" >"$t/esc.md" 2>&1
"$MMCOMPARE" --csv "$t/esc/base" "$t/esc/new" >"$t/esc.csv" 2>&1
"$MMBENCH" summary "$t/esc/base/b1" >"$t/esc.sum" 2>&1
check "control bytes from result files: none in mmcompare's text, markdown, CSV or mmbench summary" \
	eval '! grep -q "[$e$b]" "$t/esc.txt" "$t/esc.md" "$t/esc.csv" "$t/esc.sum" &&
	grep -q "w?\[2Jl" "$t/esc.txt" && grep -q "x?\[31my?" "$t/esc.txt"'
finish
