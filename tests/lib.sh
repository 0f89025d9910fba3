# Shared helpers for shell tests. A test script prints one line per check:
#   PASS: name | FAIL: name - why | SKIP: name - reason
# tests/run counts those lines; a script that exits non-zero without
# printing FAIL is counted as one failure.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MMBENCH=${MMBENCH:-$TOP/bench/mmbench}
_fails=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1 - ${2:-}"; _fails=$((_fails + 1)); }
skip() { echo "SKIP: $1 - ${2:-}"; }
# check NAME CMD...: pass if CMD succeeds
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "command failed: $*"; fi; }
tmpdir() { mktemp -d "${TMPDIR:-/tmp}/mmbench-test.XXXXXX"; }
finish() { [ "$_fails" -eq 0 ]; exit $?; }
# The ASan+UBSan build of the driver (make bench/mmbench-san).
MMBENCH_SAN=${MMBENCH_SAN:-$TOP/bench/mmbench-san}
[ -x "$MMBENCH_SAN" ] || MMBENCH_SAN=$MMBENCH
# The value of KEY in a key,value meta.csv
meta_get() { awk -F, -v k="$2" '$1 == k { sub(/^[^,]*,/, ""); print; exit }' "$1"; }
# Column N (1-based) of results.csv rows whose metric (col 8) is M: values only
metric_vals() { awk -F, -v m="$2" 'NR > 1 && $(NF-3) == m { print $(NF-2) }' "$1"; }
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
# results.csv rows as "case<TAB>metric<TAB>value<TAB>better" (the case
# unquoted; only the case column may hold commas, quoted by libcsv).
result_rows() {
	awk -F, 'NR > 1 {
		c = $6
		for (i = 7; i <= NF - 5; i++) c = c "," $i
		if (c ~ /^".*"$/) { c = substr(c, 2, length(c) - 2); gsub(/""/, "\"", c) }
		printf "%s\t%s\t%s\t%s\n", c, $(NF - 3), $(NF - 2), $NF
	}' "$1"
}
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
