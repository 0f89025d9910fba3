#!/usr/bin/env bash
# A killed driver takes its case with it, and `mmbench restore` holds
# whatever the moment of the kill. The run waits at a chosen point
# (MMBENCH_STOP_AT=ROLE/POINT[:N], a test hook of the driver: the process
# that reaches it says so and waits for SIGUSR1); the driver is SIGKILLed
# there, the waiting processes are let go (a real kill meets them running),
# and `mmbench restore` runs. At every point: restore exits 0, every knob
# the run changed reads as before, nothing of the run is left running, no
# row is added after the kill, and the knobs still read as before once the
# last process is gone. No check depends on timing: the kill happens at a
# point the run itself announced.
. "$(dirname "$0")/../lib.sh"
# The knobs: THP ones no other test changes (tests of thp_storm and of the
# settings facility change enabled, defrag and the 64kB/512kB mTHP sizes,
# and may run at the same time on a shared machine).
T=/sys/kernel/mm/transparent_hugepage
K=$T/khugepaged
if [ "$(id -u)" != 0 ]; then skip "kill points" "not root"; exit 4; fi
if [ ! -w $K/scan_sleep_millisecs ] || [ ! -w $K/alloc_sleep_millisecs ]; then
	skip "kill points" "no writable khugepaged knobs"; exit 4
fi
knobs="$K/scan_sleep_millisecs $K/alloc_sleep_millisecs"
[ -w $T/hugepages-16kB/enabled ] && knobs+=" $T/hugepages-16kB/enabled"
word() { sed 's/.*\[\(.*\)\].*/\1/' "$1"; }
snap() { for f in $knobs; do printf '%s=%s\n' "$f" "$(word "$f")"; done; }
orig=$(snap)
t=$(tmpdir)
putback() { for f in $knobs; do grep "^$f=" <<<"$orig" | cut -d= -f2 >"$f"; done; }
trap 'putback; rm -rf "$t"' EXIT

# A value other than the current one for each knob.
sets=()
for f in $knobs; do
	cur=$(word "$f")
	case $cur in
	[0-9]*) new=$((cur + 1)) ;;
	*) new=$(tr -d '[]' <"$f" | tr ' ' '\n' | grep -vx "$cur" | grep -v '^$' | head -1) ;;
	esac
	sets+=(--set "$f=$new")
done

reached() { local c; c=$(grep -c "stop point $2 reached" "$1" 2>/dev/null); [ "${c:-0}" -ge "$3" ]; }
at() { reached "$@" || ! kill -0 $pid 2>/dev/null; }	# there, or gone
run_procs() { pgrep -f -- "-o $1( |$)"; }
no_procs() { ! run_procs "$1" >/dev/null; }
rows() { cat "$1"/*.csv 2>/dev/null | wc -l; }

# Points: the driver applying --set at setup and restoring, the case
# child from fork to its last iteration, a team task before and after it
# asks to die with its parent.
points="driver/set-saved:1 driver/set-written:2 driver/restore-start:2
	driver/case-start driver/restore-start:3 driver/restore-write:1
	driver/restore-write:3 driver/case-end case/start case/armed case/locked
	case/set-saved:1 case/set-written:1 case/set-saved:3 case/set-written:3
	case/iteration:1 case/iteration:3 task/start task/armed"
for p in $points; do
	d=$t/${p//[\/:]/-}
	mkdir -p "$d"
	MMBENCH_STOP_AT=$p "$MMBENCH" run pageout -p instances=2 -p size_mb=2 \
		-p duration_s=0.1 -i 3 -w 0 "${sets[@]}" -o "$d/r" 2>"$d/err" &
	pid=$!
	# each task of a team reaches a task/ point: wait for both
	n=1; [ "${p%%/*}" = task ] && n=2
	if ! { wait_until 300 at "$d/err" "$p" $n && reached "$d/err" "$p" $n; }; then
		fail "kill at $p" "the run never reached it: $(tail -2 "$d/err")"
		kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null; continue
	fi
	before=$(rows "$d/r")
	kill -KILL $pid
	wait $pid 2>/dev/null
	for q in $(sed -n 's/.*stop point .* reached by pid \([0-9]*\).*/\1/p' "$d/err"); do
		kill -USR1 "$q" 2>/dev/null
	done
	"$MMBENCH" restore "$d/r" >"$d/restore.out" 2>&1
	rc=$?
	now=$(snap)
	wait_until 300 no_procs "$d/r"
	left=$(run_procs "$d/r" | tr '\n' ' ')
	if [ $rc = 0 ] && [ "$now" = "$orig" ] && [ -z "$left" ] &&
		[ "$(snap)" = "$orig" ] && [ "$(rows "$d/r")" = "$before" ]; then
		pass "kill at $p: restored, nothing left running, no row after the kill"
	else
		fail "kill at $p" "restore rc=$rc; knobs after restore: $(tr '\n' ' ' <<<"$now");\
 now: $(snap | tr '\n' ' '); left running: '$left'; rows $before -> $(rows "$d/r");\
 restore said: $(tr '\n' '|' <"$d/restore.out")"
		kill -KILL $left 2>/dev/null
		putback
	fi
done
finish
