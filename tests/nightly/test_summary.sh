#!/usr/bin/env bash
# mmbench summary (the table run.sh ends with, and what the nightly reads
# a dead case from) recomputed from the rows it summarises: for every
# judged metric and case of a synthetic run (mmsynth: known means and
# spreads, a case string with a comma, an info metric, one iteration), the
# printed mean, CoV and N must equal the arithmetic mean, the sample
# standard deviation over the mean, and the count of results.csv rows.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
[ -x "$MMBENCH" ] || { skip "mmbench summary" "no $MMBENCH (make)"; exit 4; }

r=$d/run
"$MMSYNTH" -o "$r" --label s --host "$HOST" --kernel 6.1.0-s --stamp 20260101-000000 \
	--seed 7 -i 6 \
	--line "pageout instances=1 loops_per_s loops/s higher 100 5" \
	--line "pageout instances=2 loops_per_s loops/s higher 180 20" \
	--line "pageout instances=1 loop_time ns lower 5000 50" \
	--line "thp_storm sizes=64K,2M;threads=1 fault_both_mean us lower 12.5 3" \
	--line "pageout instances=1 pages_out count info 1000 10" >/dev/null ||
	{ fail "setup: mmsynth" ""; finish; }
# One case with a single iteration: no spread to speak of.
"$MMSYNTH" -o "$d/one" --label s --host "$HOST" --kernel 6.1.0-s --stamp 20260101-000001 \
	--seed 8 -i 1 --line "pageout instances=4 loops_per_s loops/s higher 300 30" >/dev/null
sed 1d "$d/one/results.csv" >>"$r/results.csv"

"$MMBENCH" summary "$r" >"$d/sum" 2>"$d/err"
rc=$?
check "summary exits 0 (got $rc)" test "$rc" -eq 0
# The table: from the header line to the first blank line. A workload's
# "Fixed:" line holds the keys every one of its cases shares; its metric
# lines then show only the keys that vary (none: no CASE column). Each
# metric line is put back with its whole case (the keys sorted, as the
# case strings are), so it can be matched to the rows.
awk '/^WORKLOAD +METRIC +MEAN +UNIT +CoV +MDC +N +CASE/ { on = 1; next } on && /^$/ { exit } on && !/^MDC: /' \
	"$d/sum" >"$d/shown"
awk 'function whole(f, v,   n, k, i, j, t, out) {
		n = 0
		if (f != "") n = split(f, k, ";")
		if (v != "") { split(v, t, ";"); for (i in t) k[++n] = t[i] }
		for (i = 2; i <= n; i++) for (j = i; j > 1 && k[j - 1] > k[j]; j--) { t[0] = k[j]; k[j] = k[j - 1]; k[j - 1] = t[0] }
		out = ""; for (i = 1; i <= n; i++) out = out (i > 1 ? ";" : "") k[i]
		return out
	}
	$2 == "Fixed:" { fixed[$1] = $3; next }
	{ print $1, $2, $3, $4, $5, $6, $7, whole(fixed[$1], NF >= 8 ? $8 : "") }' "$d/shown" >"$d/table"
check "summary prints its table" test -s "$d/table"
check "thp_storm's one case: its keys on a Fixed: line, none repeated on its metric line" \
	eval 'grep -Eq "^thp_storm +Fixed: sizes=64K,2M;threads=1$" "$d/shown" && grep -Eq "^thp_storm +fault_both_mean( +[^ ]+){5}$" "$d/shown"'

# Recompute from the rows: "workload case metric mean cov n" per judged line.
"$MMBENCH" field "$r/results.csv" workload case metric value better | awk -F'\t' '$5 != "info" {
		k = $1 SUBSEP $2 SUBSEP $3
		v = $4 + 0; n[k]++; s[k] += v; q[k] += v * v; keys[k] = 1
	}
	END {
		for (k in keys) {
			split(k, f, SUBSEP); m = s[k] / n[k]; var = 0
			if (n[k] > 1) var = (q[k] - n[k] * m * m) / (n[k] - 1)
			cov = (m != 0 && var > 0) ? 100 * sqrt(var) / (m < 0 ? -m : m) : 0
			printf "%s %s %s %.12g %.12g %d\n", f[1], f[2], f[3], m, cov, n[k]
		}
	}' | sort >"$d/want"
check "5 judged lines recomputed (info metrics left out)" test "$(wc -l <"$d/want")" -eq 5
while read -r wl kase metric mean cov n; do
	line=$(awk -v w="$wl" -v m="$metric" -v c="$kase" '$1 == w && $2 == m && $NF == c' "$d/table")
	name="summary $wl $metric [$kase]"
	if [ -z "$line" ]; then
		fail "$name" "no line in the table"
		continue
	fi
	read -r _ _ pmean _ pcov _ pn _ <<<"$line"
	pcov=${pcov%\%}
	# Printed to 4 significant digits and to 0.01 %: compare at that precision.
	if awk -v a="$pmean" -v b="$mean" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 5e-4 * (b < 0 ? -b : b) + 1e-12) }'; then
		pass "$name: mean $pmean = the rows' mean $mean"
	else
		fail "$name: mean" "printed $pmean, the rows' arithmetic mean is $mean"
	fi
	if awk -v a="$pcov" -v b="$cov" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.0051) }'; then
		pass "$name: CoV $pcov% = the rows' $cov%"
	else
		fail "$name: CoV" "printed $pcov%, the rows' sample stddev / mean is $cov%"
	fi
	check "$name: N $pn = $n rows" test "$pn" = "$n"
done <"$d/want"
check "no line for the info metric pages_out" test -z "$(awk '$2 == "pages_out"' "$d/table")"
check "the table has exactly the judged lines" test "$(wc -l <"$d/table")" -eq "$(wc -l <"$d/want")"
check "the single-iteration case: CoV 0" \
	test -n "$(awk '$NF == "instances=4" && $5 == "0.00%" && $6 == "-" && $7 == 1' "$d/table")"

# The helper every test can use: a metric that is absent is a failure, not 0.
out=$( . "$TOP/tests/lib.sh"; metric_get v "$r/results.csv" no_such_metric; echo "rc=$?" )
check "metric_get: an absent metric fails, naming it" \
	grep -q "^FAIL: metric no_such_metric in $r/results.csv - no row" <<<"$out"
check "metric_get: ... and returns 1" grep -qx "rc=1" <<<"$out"
metric_get v "$r/results.csv" loop_time instances=1 &&
	check "metric_get: a present metric's mean ($v)" test "$(grep -c . <<<"$v")" -eq 1
finish
