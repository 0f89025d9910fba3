#!/usr/bin/env bash
# A full file system loses no row that reached the disk and never passes a
# case whose rows are not on disk: the run dir is a small tmpfs, filled at
# chosen moments of the run (MMBENCH_STOP_AT: the run waits there, the
# test fills the disk, then lets it go). Checked each time: the exit
# status, the reason on stderr, every file holding only whole rows, and the
# rows written before the disk filled still there.
. "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ]; then skip "disk full" "not root (mounts a tmpfs)"; exit 4; fi
t=$(tmpdir)
m=$t/fs
mkdir -p "$m" "$t/data"
trap 'umount "$m" 2>/dev/null; rm -rf "$t"' EXIT

# at POINT: the run announced it waits at POINT (or it is gone: then no)
at() { grep -q "stop point $1 reached" "$t/err" 2>/dev/null || ! kill -0 $pid 2>/dev/null; }
reached() { grep -q "stop point $2 reached" "$1"; }
# fresh SIZE: a new empty tmpfs of SIZE on $m
fresh() { umount "$m" 2>/dev/null; mount -t tmpfs -o "size=$1" tmpfs "$m"; }
fill() { dd if=/dev/zero of="$m/fill" bs=4096 2>/dev/null; sync; }
# whole DIR: every .csv file of DIR ends with a newline, and every line of a
# result file has the 11 fields of its header
whole() {
	local f
	for f in "$1"/*.csv; do
		[ -s "$f" ] || continue
		[ "$(tail -c1 "$f" | od -An -c | tr -d ' ')" = '\n' ] || { echo "$f: torn last line"; return 1; }
	done
	for f in "$1/results.csv" "$1/warmup.csv"; do
		[ -e "$f" ] || continue
		awk -F, 'NF != 11 { print FILENAME ":" NR ": " NF " fields"; bad = 1 } END { exit bad }' "$f" || return 1
	done
}
run() {	# run DIR STOP ARGS...: pageout into DIR, waiting at STOP (or none)
	local d=$1 stop=$2
	shift 2
	MMBENCH_STOP_AT=$stop "$MMBENCH" run pageout -p instances=1 -p size_mb=2 \
		-p dir="$t/data" -w 0 "$@" -o "$d" >"$t/out" 2>"$t/err" &
	pid=$!
}
let_go() { kill -USR1 "$(sed -n 's/.*stop point .* reached by pid \([0-9]*\).*/\1/p' "$t/err" | head -1)"; }

# 0. The issue's case: a 24 KiB tmpfs and three iterations. Before, the run
# exited 0 saying "1 passed" with 24 of 33 rows of iteration 0 and a torn one.
fresh 24k
run "$m/r" "" -p duration_s=0.2 -i 3
wait $pid; rc=$?
if [ $rc = 1 ] && ! grep -q ' 1 passed' "$t/err" && grep -q 'No space left on device' "$t/err" &&
	why=$(whole "$m/r"); then
	pass "24 KiB: exit 1, no pass, the reason on stderr, no torn row"
else
	fail "24 KiB" "rc=$rc $why; $(tail -3 "$t/err" | tr '\n' '|')"
fi

# 1. The disk fills after iteration 0: its rows stay, iteration 1 fails the
# case with the reason, cases.csv cannot take the row and stderr says so.
fresh 4m
run "$m/r" case/iteration:1 -p duration_s=0.1 -i 3
if wait_until 300 at case/iteration:1 && reached "$t/err" case/iteration:1; then
	cp "$m/r/results.csv" "$t/iter0.csv"
	fill
	let_go
	wait $pid; rc=$?
	n0=$(wc -l <"$t/iter0.csv")
	if [ $rc = 1 ] && why=$(whole "$m/r") &&
		[ "$(head -n "$n0" "$m/r/results.csv" | cmp - "$t/iter0.csv" && echo same)" = same ] &&
		grep -q 'the outcome of pageout .*(fail: cannot write results.csv: No space left on device) is not on disk' "$t/err" &&
		grep -q '0 passed, 1 failed' "$t/err"; then
		pass "full after iteration 0: its $((n0 - 1)) rows kept whole, the case failed with the reason, exit 1"
	else
		fail "full after iteration 0" "rc=$rc $why; $(tail -3 "$t/err" | tr '\n' '|')"
	fi
	rm -f "$m/fill"
	"$MMBENCH" summary "$m/r" >/dev/null 2>"$t/sum.err" && ! grep -q torn "$t/sum.err" &&
		pass "full after iteration 0: summary reads every file, no torn row" ||
		fail "summary after a full disk" "$(cat "$t/sum.err")"
else
	fail "full after iteration 0" "never reached: $(tail -2 "$t/err")"; kill -KILL $pid 2>/dev/null
fi

# 2. Full before the case wrote anything (results.csv cannot be created).
fresh 4m
run "$m/r" case/locked -p duration_s=0.1 -i 2
if wait_until 300 at case/locked && reached "$t/err" case/locked; then
	fill; let_go; wait $pid; rc=$?
	[ $rc = 1 ] && why=$(whole "$m/r") && [ ! -s "$m/r/results.csv" ] &&
		grep -Eq 'fail: cannot write (metrics|results).csv: No space left on device' "$t/err" &&
		pass "full before the first row: the case fails, exit 1, no empty result file" ||
		fail "full before the first row" "rc=$rc $why; $(ls "$m/r"); $(tail -3 "$t/err" | tr '\n' '|')"
else
	fail "full before the first row" "never reached"; kill -KILL $pid 2>/dev/null
fi

# 3. Only cases.csv fails: the case passed, but its outcome is not on disk.
fresh 4m
run "$m/r" driver/case-end -p duration_s=0.1 -i 1
if wait_until 300 at driver/case-end && reached "$t/err" driver/case-end; then
	fill; let_go; wait $pid; rc=$?
	[ $rc = 1 ] && why=$(whole "$m/r") &&
		grep -q 'cannot write cases.csv: No space left on device: the outcome of pageout .* (pass) is not on disk' "$t/err" &&
		grep -q '0 passed, 1 failed' "$t/err" &&
		pass "cases.csv full: a passed case whose row is not on disk counts as failed, exit 1" ||
		fail "cases.csv full" "rc=$rc $why; $(tail -3 "$t/err" | tr '\n' '|')"
else
	fail "cases.csv full" "never reached"; kill -KILL $pid 2>/dev/null
fi

# 4. started.csv cannot be created: no case runs.
fresh 4m
run "$m/r" driver/case-begin:1 -p duration_s=0.1,0.2 -i 1
if wait_until 300 at driver/case-begin:1 && reached "$t/err" driver/case-begin:1; then
	fill; let_go; wait $pid; rc=$?
	[ $rc = 1 ] && why=$(whole "$m/r") && [ ! -e "$m/r/results.csv" ] &&
		[ "$(grep -c 'cannot write started.csv: No space left on device; the case was not run' "$t/err")" = 2 ] &&
		grep -q '0 passed, 2 failed' "$t/err" &&
		pass "started.csv full: no case runs unnamed, exit 1" ||
		fail "started.csv full" "rc=$rc $why; $(tail -3 "$t/err" | tr '\n' '|')"
else
	fail "started.csv full" "never reached"; kill -KILL $pid 2>/dev/null
fi

# 5. Full before meta.csv: the run stops at once, exit 1, the reason named.
fresh 4m
fill
"$MMBENCH" run pageout -p instances=1 -p size_mb=2 -p duration_s=0.1 -i 1 -w 0 \
	-p dir="$t/data" -o "$m/r" >/dev/null 2>"$t/err"
rc=$?
[ $rc = 1 ] && grep -q "meta.csv: No space left on device" "$t/err" && [ ! -e "$m/r/started.csv" ] &&
	pass "full at setup: exit 1 before any case, meta.csv named" ||
	fail "full at setup" "rc=$rc $(tail -2 "$t/err" | tr '\n' '|')"
finish
