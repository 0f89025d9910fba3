#!/usr/bin/env bash
# Killing a nightly run mid-suite (the real driver, a tiny pageout suite):
# SIGTERM stops the suite, history.csv stays valid and names the partial
# run as failed; after a SIGKILL of the nightly the orphaned suite keeps the
# lock until it ends, and the next start records the run as failed; after a
# crash (everything killed at once) it also names the case that was running.
# The meta.csv of a run carries the load average and busy processes at start.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
[ -x "$MMBENCH" ] || { skip "nightly kill" "no $MMBENCH (make)"; exit 4; }
# A suite far longer than the test waits: a kill always lands mid-suite,
# however slow the machine (the SIGKILL part stops the orphan by hand, then
# ends it with SIGTERM: it never ends on its own in between).
suite_of() { echo "pageout -p instances=1 -p size_mb=4 -p duration_s=0.3 -i $1 -w 0" >"$d/tiny.suite"; }
suite_of 200
write_conf "$d" <<'EOF2'
trends = no
EOF2
# The suite's own -i 200, not write_conf's iterations = 5: a run of five
# short iterations can end between the test's look and its kill.
sed -i -e 's/^suite = quick/suite = tiny.suite/' -e '/^iterations = /d' "$d/n.conf"

# Measured iterations of the run so far (rows of its "loops" metric).
iters() { grep -c ',loops,' "$1/results.csv" 2>/dev/null || echo 0; }

# start_mid: start the nightly, wait until the suite is two iterations in.
start_mid() {
	"$NIGHTLY" "$d/n.conf" >"$d/out" 2>&1 &
	pid=$!
	run=''
	for _ in $(seq 6000); do	# a hang guard (10 min), not a time limit
		run=$(sed -n 's/^p_run_dir=//p' "$d/res/.nightly/pending-$HOST" 2>/dev/null)
		[ -n "$run" ] && [ "$(iters "$run")" -ge 2 ] && return 0
		sleep 0.1
	done
	return 1
}
# The driver processes of the run (timeout(1) and mmbench name its
# directory) and, with -g, their cases' process groups too.
drivers() { pgrep -f -- "-o $run"; }
gone() { # wait until none of the pids is alive (hang guard: 10 min)
	local p
	for _ in $(seq 6000); do
		for p in "$@"; do kill -0 "$p" 2>/dev/null && break; done
		kill -0 "$p" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

if ! start_mid; then
	fail "SIGTERM: suite reached its first rows" "$(cat "$d/out")"
	kill "$pid" 2>/dev/null
	finish
fi
kill -TERM "$pid"
wait "$pid"
rc=$?
check "SIGTERM: nightly exits 1 (got $rc)" test "$rc" -eq 1
check "SIGTERM: summary says killed" grep -q "FAILED: killed by SIGTERM during the suite" "$d/out"
out=$("$MMHISTORY" check "$d/res/history.csv")
check "SIGTERM: history.csv parseable ($out)" grep -q "valid, 1 rows" <<<"$out"
row=$("$MMHISTORY" select "$d/res/history.csv" --fields status,run_dir,reason)
check "SIGTERM: the partial run is marked failed with the reason" \
	grep -q "^failed	${run#"$d/res/"}	killed by SIGTERM during the suite" <<<"$row"
check "SIGTERM: no pending run left" test ! -e "$d/res/.nightly/pending-$HOST"
n=$(iters "$run")
check "SIGTERM: the partial results are kept ($n of 200 iterations)" test "$n" -ge 2 -a "$n" -lt 200
left=$(drivers)
check "SIGTERM: the suite stopped with the nightly (left: ${left:-none})" test -z "$left"
for k in nightly_loadavg nightly_busy nightly_procs nightly_mem_available_mb; do
	v=$("$MMHISTORY" meta-get "$run/meta.csv" "$k")
	check "meta.csv has $k at start ($v)" test -n "$v"
done
check "nightly_loadavg is three load averages" \
	grep -Eq '^[0-9.]+ [0-9.]+ [0-9.]+$' <<<"$("$MMHISTORY" meta-get "$run/meta.csv" nightly_loadavg)"

suite_of 200
if ! start_mid; then
	fail "SIGKILL: suite reached its first rows" "$(cat "$d/out")"
	kill "$pid" 2>/dev/null
	finish
fi
# The orphaned driver is held still (SIGSTOP) while the next start tries:
# it cannot end before that start, however fast or slow the machine. It is
# stopped only after the nightly has died and been reaped: timeout(1) leads
# a process group of its own, which the nightly's death orphans, and the
# kernel sends SIGHUP and SIGCONT to an orphaned group that holds a stopped
# process (POSIX job control). Stopped before that death, the driver got
# that SIGHUP (timeout passes it on to mmbench) and ended, releasing the
# lock, whenever the stop landed before the exit: a race, not a lost lock.
# The lock's holders that must outlive the nightly: its timeout(1) and the
# mmbench under it (both inherited the lock's descriptor). A case's
# workers come and go with its iterations: they are stopped too, when
# there, but not required.
tmo=$(pgrep -P "$pid" -x timeout)
mmb=${tmo:+$(pgrep -P "$tmo")}
{ kill -KILL "$pid"; wait "$pid"; } 2>/dev/null
drv=$(drivers)
kill -STOP $drv 2>/dev/null
# A driver that died with the nightly would be a lost lock: the start
# below must then find the lock free and fail its check. (A stop lands
# when the process next runs: wait for it, or for a death.)
holders_state() { ps -o stat= -p "${tmo:-0},${mmb:-0}" 2>/dev/null | cut -c1 | paste -sd' '; }
settled() { [[ $(holders_state) != *[!T\ ]* ]]; }
wait_until 600 settled
check "SIGKILL: the orphaned driver outlives the nightly, held still (timeout ${tmo:-not found}, mmbench ${mmb:-not found}: $(holders_state))" \
	test -n "$tmo" -a -n "$mmb" -a "$(holders_state)" = "T T"
"$NIGHTLY" "$d/n.conf" >"$d/out2" 2>&1
rc=$?
if [ "$rc" -eq 75 ]; then
	pass "SIGKILL: the orphaned suite keeps the lock (exit $rc)"
else
	fail "SIGKILL: the orphaned suite keeps the lock" "exit $rc; held still: ${drv//$'\n'/ } ($(ps -o pid=,stat=,comm= -p "${drv//$'\n'/,}" 2>&1 | paste -sd' ')); the start said: $(head -n 3 "$d/out2" | paste -sd'|')"
fi
check "SIGKILL: the refusal names the orphaned driver as the holder" \
	grep -q "another nightly run holds .*nightly.lock (pid [0-9]* (timeout -k 60, uid $(id -u), since " "$d/out2"
kill -CONT $drv 2>/dev/null
kill -TERM $drv 2>/dev/null
gone $drv
check "SIGKILL: the orphaned suite ends when stopped" test -z "$(drivers)"
sed -i 's/^need_mem_mb = .*/need_mem_mb = 99999999/' "$d/n.conf"
"$NIGHTLY" "$d/n.conf" >"$d/out2" 2>&1
rc=$?
check "SIGKILL: the next start runs once the suite ended (refused: exit $rc)" test "$rc" -eq 1
check "SIGKILL: the next start reports the interrupted run" \
	grep -q "recorded the interrupted run" "$d/out2"
out=$("$MMHISTORY" check "$d/res/history.csv")
check "SIGKILL: history.csv parseable ($out)" grep -q "valid, 3 rows" <<<"$out"
row=$("$MMHISTORY" select "$d/res/history.csv" --fields status,run_dir,reason | sed -n 2p)
check "SIGKILL: the killed run is marked failed" \
	grep -q "^failed	${run#"$d/res/"}	interrupted: the nightly was killed" <<<"$row"
row=$("$MMHISTORY" select "$d/res/history.csv" --fields status,reason | sed -n 3p)
check "the refused start is recorded with its reason" grep -q "^refused	MemAvailable is" <<<"$row"
check "the refusal names MemAvailable and need_mem_mb" \
	grep -q "run: refused: MemAvailable is [0-9]* MiB; the suite needs need_mem_mb = 99999999" "$d/out2"
check "the refused start's summary is whole, down to its exit line (no shell error)" \
	test "$(tail -n 1 "$d/out2")" = "exit 1: the run failed or could not be judged" -a \
	-z "$(grep -i 'unbound\|line [0-9]*:' "$d/out2")"

# A crash of the machine: the nightly, the driver and the case all stop at
# once (SIGKILL). The next start records the run and names the case that
# was running (started.csv has it, cases.csv not).
sed -i 's/^need_mem_mb = .*/need_mem_mb = 1/' "$d/n.conf"
suite_of 200
if ! start_mid; then
	fail "crash: suite reached its first rows" "$(cat "$d/out")"
	kill "$pid" 2>/dev/null
	finish
fi
# timeout(1) and mmbench (both name the run directory), and each case's
# process group
drv=$(drivers)
kase=$(for p in $drv; do pgrep -P "$p"; done)
kill -KILL "$pid" $drv 2>/dev/null
for p in $kase; do kill -KILL -- -"$p" 2>/dev/null; done
wait "$pid" 2>/dev/null
gone $drv $kase
sed -i 's/^need_mem_mb = .*/need_mem_mb = 99999999/' "$d/n.conf"
"$NIGHTLY" "$d/n.conf" >"$d/out3" 2>&1
rc=$?
check "crash: the next start gets the lock (refused on memory: exit $rc)" test "$rc" -eq 1
check "crash: the next start reports the interrupted run" \
	grep -q "recorded the interrupted run" "$d/out3"
row=$("$MMHISTORY" select "$d/res/history.csv" --fields status,run_dir,reason | sed -n 4p)
check "crash: history names the case that was running" \
	grep -q "^failed	${run#"$d/res/"}	interrupted: .* while this case ran: pageout \[.*duration_s=0.3;.*\], started 20[0-9-]*T[0-9:]*Z" <<<"$row"
finish
