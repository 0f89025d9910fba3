# Shared helpers for shell tests. A test script prints one line per check:
#   PASS: name | FAIL: name - why | SKIP: name - reason
#   (and RERUN: name - why when it runs a part again)
# tests/run counts those lines; a script that exits non-zero without
# printing FAIL, exits 0 without printing any, or hangs past its time limit
# is counted as one failure.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MMBENCH=${MMBENCH:-$TOP/bench/mmbench}
_fails=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1 - ${2:-}"; _fails=$((_fails + 1)); }
skip() { echo "SKIP: $1 - ${2:-}"; }
# rerun NAME WHY: a part of the test is run again (a guest that died);
# tests/run counts these after its totals ("(N run again: TEST)").
rerun() { echo "RERUN: $1 - ${2:-}"; }
# need_lab NAME: a SKIP naming NAME, and the test ends, on a machine
# without the VM lab (tools/vm/lab, qemu-system-x86_64).
need_lab() {
	[ -x "$TOP/tools/vm/lab" ] && command -v qemu-system-x86_64 >/dev/null && return 0
	skip "$1" "no VM lab (tools/vm/lab, qemu-system-x86_64)"
	finish
}
# lab_rerun NAME ERRFILE: a RERUN line when the VM lab (its stderr in
# ERRFILE) ran the suite again in a fresh guest (tools/vm/lab-run.sh: a
# guest that went silent or whose QEMU failed), so that tests/run counts it.
lab_rerun() {
	local l
	while IFS= read -r l; do
		rerun "$1" "${l#*: }"
	done < <(grep 'running the suite again in a fresh guest' "$2")
}
# check NAME CMD...: pass if CMD succeeds
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "command failed: $*"; fi; }
tmpdir() { mktemp -d "${TMPDIR:-/tmp}/mmbench-test.XXXXXX"; }
finish() { [ "$_fails" -eq 0 ]; exit $?; }
# san_reports FILE...: the files holding a report of AddressSanitizer,
# LeakSanitizer or UndefinedBehaviorSanitizer, one per line; nothing when
# none. For the outputs of the tests' ASan/UBSan builds.
san_reports() {
	grep -l -E 'ERROR: (Address|Leak)Sanitizer|SUMMARY: [A-Za-z]*Sanitizer|runtime error: ' "$@" 2>/dev/null
}
# The ASan+UBSan build of the driver (make bench/mmbench-san).
MMBENCH_SAN=${MMBENCH_SAN:-$TOP/bench/mmbench-san}
[ -x "$MMBENCH_SAN" ] || MMBENCH_SAN=$MMBENCH
# The value of KEY in a key,value meta.csv (its first row; read with
# libcsv: a quoted value comes back unquoted, commas and all)
meta_get() { "$MMBENCH" field --where key="$2" "$1" value 2>/dev/null | head -n 1; }
# metric_vals RESULTS_CSV M: the values of the rows whose metric is M, in
# order (read by column name with libcsv)
metric_vals() { "$MMBENCH" field --where metric="$2" "$1" value; }
# metric_units RESULTS_CSV METRIC:UNIT:BETTER...: a PASS per metric whose
# first row has that unit (col 10) and direction (col 11), a FAIL naming
# what it has otherwise.
metric_units() {
	local res=$1 mu m u b got
	shift
	for mu in "$@"; do
		IFS=: read -r m u b <<<"$mu"
		got=$("$MMBENCH" field --where metric="$m" "$res" unit better 2>/dev/null | head -n 1 | tr '\t' :)
		[ "$got" = "$u:$b" ] && pass "metric $m in $u ($b)" ||
			fail "metric $m" "unit '${got%%:*}' better '${got#*:}'"
	done
}
# failed_only_for CASES_CSV WORKLOAD ERE: "yes" when WORKLOAD has failed
# cases in the cases.csv and every one's row matches ERE (a reason outside
# the workload's hands, such as the host's), nothing otherwise.
failed_only_for() {	# by column name (libcsv): a case or reason may hold commas
	"$MMBENCH" field --where workload="$2" "$1" status case reason 2>/dev/null |
		awk -F'\t' -v re="$3" '$1 != "pass" { n++; if ($0 ~ re) m++; else other = 1 }
		END { if (n && !other && m == n) print "yes" }'
}
# wait_until MAX_S CMD...: poll CMD (every 0.1 s) until it succeeds. MAX_S
# only guards against a hang: a check never depends on how long it took.
wait_until() {
	local max=$(($1 * 10)) i
	shift
	for ((i = 0; i < max; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# results.csv rows as "case<TAB>metric<TAB>value<TAB>better" (read by
# column name with libcsv; the case comes back unquoted).
result_rows() { "$MMBENCH" field "$1" case metric value better; }
# metric_get VAR FILE METRIC [CASE]: the mean of METRIC's values in the
# results.csv FILE (of CASE when given) into VAR; when there is no such row
# a FAIL line names it and the status is 1: an absent metric is not a 0.
# Call it directly, not inside $(...), or the FAIL is lost with the subshell.
metric_get() {
	local _v
	_v=$(result_rows "$2" | awk -F'\t' -v m="$3" -v c="${4-}" -v any="${4+x}" '
		$2 == m && (any == "" || $1 == c) { n++; s += $3 }
		END { if (n) printf "%.12g\n", s / n }')
	if [ -z "$_v" ]; then
		fail "metric $3${4+ [$4]} in $2" "no row: an absent metric is not a value"
		return 1
	fi
	printf -v "$1" '%s' "$_v"
}
# thp_storm_recheck RUN_DIR: thp_storm's derived metrics recomputed from the
# rows they derive from, per case and iteration: pct_huge from the fault
# counts; compaction_efficiency and scan_efficiency (present exactly when
# their denominator is not 0) and compaction_cost from the vmstat deltas;
# with samples.csv (-p samples=1), every class's mean, p50, p90, p99 (type 7
# interpolation) and max from the per-fault latencies. Prints one line per
# disagreement (nothing when all agree) and returns 1 when there is one, or
# when there is nothing to recheck (no results.csv, no thp_storm row).
thp_storm_recheck() {
	local dir=$1 bad
	if [ ! -r "$dir/results.csv" ]; then
		echo "$dir/results.csv: absent or unreadable: nothing to recheck"
		return 1
	fi
	local rows
	rows=$(mktemp) || return 1
	# case, iteration, metric, value of every thp_storm row, by column name
	"$MMBENCH" field --where workload=thp_storm "$dir/results.csv" case iteration metric value >"$rows"
	bad=$(awk -F'\t' '{
			k = $1 " iteration " $2; v[k, $3] = $4 + 0; h[k, $3] = 1; keys[k] = 1
		}
		function near(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-9 * (b < 0 ? -b : b) + 1e-9 }
		function want(k, m, x) {
			if (!h[k, m]) print k ": no " m " row (it should be " x ")"
			else if (!near(v[k, m], x)) print k ": " m " = " v[k, m] ", the rows give " x
		}
		END {
			if (!length(keys)) print "no thp_storm row in results.csv: nothing to recheck"
			for (k in keys) {
				if (!h[k, "fault_both_count"] || !h[k, "fault_huge_count"]) { print k ": no fault counts"; continue }
				if (v[k, "fault_both_count"] > 0)
					want(k, "pct_huge", 100 * v[k, "fault_huge_count"] / v[k, "fault_both_count"])
				if (h[k, "compact_stall"] && v[k, "compact_stall"] > 0)
					want(k, "compaction_efficiency", 100 * v[k, "compact_success"] / v[k, "compact_stall"])
				else if (h[k, "compaction_efficiency"])
					print k ": compaction_efficiency without a stall"
				if (h[k, "compact_free_scanned"] && v[k, "compact_free_scanned"] > 0)
					want(k, "scan_efficiency", 100 * v[k, "compact_migrate_scanned"] / v[k, "compact_free_scanned"])
				else if (h[k, "scan_efficiency"])
					print k ": scan_efficiency without a free page scanned"
				if (h[k, "pgmigrate_success"] && h[k, "compact_migrate_scanned"] && h[k, "compact_free_scanned"])
					want(k, "compaction_cost", ((v[k, "compact_migrate_scanned"] + v[k, "compact_free_scanned"]) * 64 + \
						v[k, "pgmigrate_success"] * 8192) / 1048576)
			}
		}' "$rows")
	if [ -f "$dir/samples.csv" ]; then
		bad+=$'\n'$( {
			"$MMBENCH" field --where workload=thp_storm "$dir/samples.csv" case iteration class value_ns |
			awk -F'\t' '{
				k = $1 " iteration " $2
				printf "%s\tfault_%s\t%.17g\n%s\tfault_both\t%.17g\n", k, $3, $4 / 1000, k, $4 / 1000
			}' | sort -t$'\t' -k1,2 -k3,3g
		} | awk -F'\t' -v res="$rows" '
			function near(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-9 * (b < 0 ? -b : b) + 1e-9 }
			function pct(p,   pos, i) { pos = p / 100 * (n - 1); i = int(pos); if (i >= n - 1) return x[n - 1]; return x[i] + (pos - i) * (x[i + 1] - x[i]) }
			function flush() {
				if (!n) return
				want[g, "_mean"] = s / n; want[g, "_p50"] = pct(50); want[g, "_p90"] = pct(90)
				want[g, "_p99"] = pct(99); want[g, "_max"] = x[n - 1]; cnt[g] = n; groups[g] = 1
				n = 0; s = 0
			}
			BEGIN {
				while ((getline line < res) > 0) {
					split(line, f, "\t")
					got[f[1] " iteration " f[2], f[3]] = f[4]
				}
			}
			{ key = $1 "\t" $2; if (key != g) { flush(); g = key }; x[n++] = $3 + 0; s += $3 }
			END {
				flush()
				for (g in groups) {
					split(g, kk, "\t")
					if (got[kk[1], kk[2] "_count"] != cnt[g])
						print kk[1] ": " kk[2] "_count = " got[kk[1], kk[2] "_count"] ", samples.csv has " cnt[g]
					split("_mean _p50 _p90 _p99 _max", S, " ")
					for (j = 1; j <= 5; j++) {
						m = kk[2] S[j]
						if (!((kk[1], m) in got)) print kk[1] ": no " m " row (it should be " want[g, S[j]] ")"
						else if (!near(got[kk[1], m] + 0, want[g, S[j]]))
							print kk[1] ": " m " = " got[kk[1], m] ", samples.csv gives " want[g, S[j]]
					}
				}
			}')
	fi
	rm -f "$rows"
	bad=$(grep -v '^$' <<<"$bad")
	[ -z "$bad" ] && return 0
	echo "$bad"
	return 1
}
