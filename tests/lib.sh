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
