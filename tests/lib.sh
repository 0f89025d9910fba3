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
