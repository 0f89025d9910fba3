#!/usr/bin/env bash
# Config errors stop the nightly with exit 2, naming the file and line;
# --check validates without running; the total time limit stops a suite
# that runs over it (exit 1, on_failure gets the summary).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
export MMBENCH=$FAKE FAKE_LINES="$(fake_lines 0)"

bad() { # NAME EXPECTED-MESSAGE CONFIG-LINES...
	local name=$1 want=$2 out rc
	shift 2
	printf '%s\n' "$@" >"$d/bad.conf"
	out=$("$NIGHTLY" "$d/bad.conf" 2>&1)
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qF "$want" <<<"$out"; then
		pass "$name: exit 2, '$out'"
	else
		fail "$name" "exit $rc, '$out' (wanted '$want')"
	fi
}
bad "unknown key" "bad.conf:2: unknown key 'suit'" "results = r" "suit = quick"
bad "not key = value" "bad.conf:1: expected 'key = value', got 'suite quick'" "suite quick"
bad "missing suite" "'suite' is required" "results = r" "lock = l"
bad "bad number" "bad.conf:2: iterations = 'five': want a whole number from 1 to" "suite = quick" "iterations = five"
bad "octal-looking number" "bad.conf:2: retention_days = '010': want a whole number" "suite = quick" "retention_days = 010"
bad "key given twice" "bad.conf:3: 'suite' given twice (first on line 1)" "suite = quick" "lock = l" "suite = quick"
bad "no such suite" "bad.conf:1: suite = 'nosuch': no such file" "suite = nosuch" "lock = l"
bad "bad time limit" "time_limit = '1d': want a duration" "suite = quick" "lock = l" "time_limit = 1d"
bad "bad baseline" "baseline = 'nosuch': not a run directory" "suite = quick" "lock = l" "results = r" "baseline = nosuch"
# alpha: the tools' rule, asked of C (mmbench check alpha), with its message
for a in 2 1 0 +0.05 0x1 -0.05 0.05x; do
	bad "bad alpha $a" "bad.conf:3: alpha = '$a': want a decimal number between 0 and 1 (such as 0.05)" \
		"suite = quick" "lock = l" "alpha = $a"
done
bad "runs 0" "bad.conf:3: runs = '0': want a whole number from 1 to 20" "suite = quick" "lock = l" "runs = 0"
bad "rerun_suspect maybe" "bad.conf:3: rerun_suspect = 'maybe': want yes or no" "suite = quick" "lock = l" \
	"rerun_suspect = maybe"
bad "confirm_nights 0" "bad.conf:2: confirm_nights = '0': want a whole number from 1 to 30" "suite = quick" \
	"confirm_nights = 0"

# Paths on the kernel's own file systems hold no results: refused by
# --check too (which creates nothing), naming the file and line.
checkbad() { # NAME EXPECTED-MESSAGE CONFIG-LINES...
	local name=$1 want=$2 out rc
	shift 2
	printf '%s\n' "$@" >"$d/bad.conf"
	out=$("$NIGHTLY" --check "$d/bad.conf" 2>&1)
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qF "$want" <<<"$out"; then
		pass "$name: --check exits 2, '$out'"
	else
		fail "$name" "--check exit $rc, '$out' (wanted '$want')"
	fi
}
checkbad "results = /proc/x" "bad.conf:2: results = '/proc/x': /proc/x is on a proc file system" \
	"suite = quick" "results = /proc/x" "lock = l"
checkbad "results = /sys/kernel/x" "bad.conf:2: results = '/sys/kernel/x': /sys/kernel/x is on a sysfs file system" \
	"suite = quick" "results = /sys/kernel/x" "lock = l"
checkbad "results = /proc (exists)" "bad.conf:2: results = '/proc': /proc is on a proc file system" \
	"suite = quick" "results = /proc" "lock = l"
checkbad "lock = /proc/x" "bad.conf:3: lock = '/proc/x': /proc/x: on a proc file system" \
	"suite = quick" "results = r" "lock = /proc/x"
bad "results = /proc/x without --check" "bad.conf:2: results = '/proc/x': /proc/x is on a proc file system" \
	"suite = quick" "results = /proc/x" "lock = l"
out=$("$NIGHTLY" "$d/none.conf" 2>&1)
check "a missing config: exit 2 naming it" test $? -eq 2 -a -n "$(grep -F "none.conf" <<<"$out")"
"$NIGHTLY" 2>/dev/null
check "no config: usage, exit 2" test $? -eq 2

write_conf "$d" <<'EOF2'
# a comment
time_limit = 10s
on_failure = cat >notified.txt
trends = no
EOF2
out=$("$NIGHTLY" --check "$d/n.conf")
rc=$?
check "--check: valid (exit $rc)" test "$rc" -eq 0
check "--check runs nothing, creates neither the results directory nor the lock" \
	test ! -e "$d/res" -a ! -e "$d/nightly.lock"
check "--check says the results directory will be created" \
	grep -q "results $d/res (does not exist yet: the first night creates it)" <<<"$out"
check "--check prints the settings" grep -q "time_limit = 10s" <<<"$out"
check "--check names the runs a night" grep -q "^  suite .*, 1 run(s) a night$" <<<"$out"
check "--check: the disk's free space where the results will be" \
	grep -Eq "disk free [0-9]+ MiB" <<<"$out"
# Without a runs key: 2 a night, the default
mkdir -p "$d/r"
printf '%s\n' "suite = quick" "results = res" "lock = l" >"$d/r/n.conf"
check "no runs key: 2 runs a night (the default)" grep -q "^  suite .*, 2 run(s) a night$" \
	<("$NIGHTLY" --check "$d/r/n.conf" 2>&1)
# alpha: what the tools take (mmbench check alpha), exponent and all
for a in 0.05 .05 5e-2 0.999; do
	mkdir -p "$d/a" && echo "alpha = $a" | write_conf "$d/a"
	out=$("$NIGHTLY" --check "$d/a/n.conf" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && grep -qx "  alpha = $a" <<<"$out" && pass "--check: alpha = $a is valid" ||
		fail "--check: alpha = $a" "exit $rc, '$(tail -n 3 <<<"$out")'"
done

# The suite would wait for ever (FAKE_HOLD names a file nobody makes); the
# limit (10 s, a fifth kept for comparing) stops it after 8 s.
FAKE_STARTED=$d/started FAKE_HOLD=$d/never "$NIGHTLY" "$d/n.conf" >"$d/out" 2>&1
rc=$?
check "over the time limit: exit 1 (got $rc)" test "$rc" -eq 1
check "over the time limit: the suite had started" test -e "$d/started"
check "over the time limit: stopped, the (fake) suite wrote no results" \
	test -z "$(find "$d/res" -name results.csv)"
check "over the time limit: no suite process left" test -z "$(pgrep -f -- "-o $d/res/")"
check "over the time limit: the summary says so" grep -q "run: failed: over the time limit: the suite was stopped after 8 s" "$d/out"
check "over the time limit: history row failed" \
	grep -q "^failed	over the time limit" <("$MMHISTORY" select "$d/res/history.csv" --fields status,reason)
check "on_failure got the summary on stdin" grep -q "^mmbench nightly on $HOST: FAILED" "$d/notified.txt"
finish
