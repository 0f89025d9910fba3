#!/usr/bin/env bash
# The nightly judges each metric by its history (tools/mmtrend/mmchange):
# synthetic nights whose level moves between runs far more than the
# iterations inside a run spread (11% and 4% against 1%), as on this
# machine. A flat history raises no alert in 20 nights; a step of 3
# between-run sd is alerted within 3 nights, with the first bad run named
# in the ledger; a suspect is re-run once, and a rerun that does not
# reproduce it is no alert; a case the host disturbed is "not measured".
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
export MMBENCH=$FAKE FAKE_LOG=$d/driver.log

# The night's lines: loops_per_s 100 (higher, 11% between runs, 1% inside
# a run) minus STEP between-run sd, fault_both_p50 120 us (lower, 4%).
lines() { # NIGHT [STEP_SD]
	printf '%s\n' \
		"pageout instances=1 loops_per_s loops/s higher $(noisy_mean "$1" "$(awk -v s="${2:-0}" 'BEGIN { print 100 - 11 * s }')" 11) 1" \
		"thp_storm threads=1 fault_both_p50 us lower $(noisy_mean "$((1000 + $1))" 120 4) 1.2"
}
write_conf "$d" <<'EOF'
label = nightly
trends = no
compare_plots = no
on_regression = { echo "exit=$NIGHTLY_EXIT"; cat; } >>notified.txt
EOF
night() { # NIGHT [STEP_SD [KERNEL]]
	FAKE_LINES=$(lines "$1" "${2:-0}") FAKE_SEED=$1 FAKE_KERNEL=${3:-6.1.0-flat} \
		"$NIGHTLY" "$d/n.conf" >"$d/out.$1" 2>"$d/err.$1"
}

# ------------------------------------------------ a flat history, 20 nights
alerts='' lines_worse='' bad=''
for n in $(seq 20); do
	night "$n"
	rc=$?
	[ "$rc" = 0 ] || bad+=" night $n: exit $rc ($(grep -m1 '^run:' "$d/out.$n"))"
	grep -q '^  WORSE ' "$d/out.$n" && lines_worse+=" $n"
done
check "a flat history: every one of 20 nights exits 0${bad:+ (not:$bad)}" test -z "$bad"
check "a flat history: no WORSE line in 20 nights${lines_worse:+ (nights$lines_worse)}" test -z "$lines_worse"
check "a flat history: nothing in the ledger" test ! -s "$d/res/regressions.csv" -o \
	-z "$("$MMHISTORY" ledger-open "$d/res/regressions.csv")"
check "a flat history: no rerun was needed" test -z "$(grep rerun=1 "$FAKE_LOG")"
check "night 20 judged 20 runs over 20 nights" \
	grep -q "^history of $HOST: 20 run(s) over 20 night(s)" "$d/out.20"
for m in "pageout loops_per_s \[instances=1\]" "thp_storm fault_both_p50 \[threads=1\]"; do
	check "night 20 prints the smallest detectable step of $m" \
		grep -Eq "^  $m: [0-9.]+% \([0-9.]+ sd; CoV [0-9.]+% from night to night, [0-9.]+% within a run; 20 runs\)$" "$d/out.20"
done
check "... under a heading that says what it is" \
	grep -q "^smallest step found within 3 nights (in 80% of synthetic histories of the same length and noise), by metric:" "$d/out.20"
check "night 5 says it is too early to know" \
	grep -q "^  pageout loops_per_s \[instances=1\]: not known yet: 5 night(s), a change needs 10 before it" "$d/out.5"

# ------------------------------------------------ a step of 3 between-run sd
first='' found=''
for n in 21 22 23; do
	night "$n" 3 6.1.0-step
	rc=$?
	[ -z "$first" ] && first=$(sed -n 's|^run: [a-z_]*; results '"$d/res/"'||p' "$d/out.$n")
	if [ "$rc" = 3 ]; then
		found=$n
		break
	fi
	check "step night $n: exit 0 until it is confirmed (got $rc)" test "$rc" = 0
done
check "a step of 3 sd: alerted within 3 nights (night ${found:-none})" test -n "$found"
if [ -n "$found" ]; then
	o=$d/out.$found
	check "the alert names the metric, the first bad run and the last good one" \
		grep -q "^  WORSE  pageout loops_per_s \[instances=1\]: -[0-9.]*% .* since run $first (.*kernel 6.1.0-step); last good run nightly/[0-9-]*-$HOST (kernel 6.1.0-flat); .*: NEW$" "$o"
	check "the other metric is not alerted" test "$(grep -c '^  WORSE ' "$o")" -eq 1
	row=$("$MMHISTORY" ledger-open "$d/res/regressions.csv" --host "$HOST")
	check "the ledger holds it, first bad run $first ($row)" \
		grep -q "^  pageout loops_per_s \[instances=1\]: worse in its history since .* (first bad run $first, kernel 6.1.0-step; last good run nightly/" <<<"$row"
	check "on_regression got the summary with exit 3" grep -qx "exit=3" "$d/notified.txt"
	check "a suspect is re-run before the alert" grep -q "re-run once" "$o"
	night 24 3 6.1.0-step
	rc=$?
	check "the night after: still open, no new alert (exit $rc)" test "$rc" = 0
	check "... and the summary lists it as open" grep -q "worse in its history since" "$d/out.24"
fi

# ------------------------------------------------ the rerun, and not measured
# flat_history NAME CONF [--meta K=V]...: a host's-worth of history made
# directly under $d/NAME/res, 14 flat nights, with CONF ($d/CONF, beside
# n.conf: a relative results path is the config file's) pointing at it.
flat_history() {
	local g=$d/$1 conf=$d/$2 n s args l
	shift 2
	mkdir -p "$g"
	sed -e "s|^results = res|results = ${g#"$d"/}/res|" "$d/n.conf" >"$conf"
	for n in $(seq 14); do
		s=$(printf '202611%02d-020000' "$n")
		args=()
		while IFS= read -r l; do args+=(--line "$l"); done < <(lines "$((100 + n))")
		"$MMSYNTH" -o "$g/res/nightly/$s-$HOST" --label nightly --host "$HOST" --kernel 6.1.0-flat \
			--stamp "$s" --seed "$n" -i 5 --meta "nightly_config=$(realpath "$conf")" "$@" \
			"${args[@]}" >/dev/null &&
		"$MMHISTORY" append "$g/res/history.csv" "date=$(printf '2026-11-%02dT02:00:00Z' "$n")" \
			"host=$HOST" label=nightly kernel=6.1.0-flat "run_dir=nightly/$s-$HOST" status=ok \
			duration_s=60 || { fail "setup: night $n of $1"; return 1; }
	done
}
r2=$d/r2
flat_history r2 n2.conf
: >"$FAKE_LOG"
night2() { # NIGHT STEP_SD RERUN_STEP_SD
	FAKE_LINES=$(lines "$1" "$2") FAKE_RERUN_LINES=$(lines "$((500 + $1))" "$3") FAKE_SEED=$1 \
		FAKE_KERNEL=6.1.0-bad "$NIGHTLY" "$d/n2.conf" >"$d/o2.$1" 2>"$d/e2.$1"
}
night2 15 5 5
rc=$?
check "one night 5 sd worse: no alert yet (exit $rc)" test "$rc" = 0
night2 16 5 0
rc=$?
check "a second bad night whose rerun is normal: no alert (exit $rc)" test "$rc" = 0
check "... the suspect was re-run once, with only its workload" \
	test "$(grep -c 'rerun=1' "$FAKE_LOG")" = 1 -a -n "$(grep 'rerun=1 .*suite=rerun-suite' "$FAKE_LOG")"
check "... the summary says the rerun did not reproduce it" \
	grep -q "^  watch  pageout loops_per_s \[instances=1\]: .*: not an alert: tonight's rerun did not reproduce it" "$d/o2.16"
check "... and names the rerun" grep -q "^suspected regression(s) in pageout re-run once: $r2/res/nightly/" "$d/o2.16"
check "... the rerun has its history row" \
	test "$("$MMHISTORY" select "$r2/res/history.csv" --fields reason | grep -c '^the rerun of a suspected regression')" = 1
night2 17 5 5
rc=$?
check "a third bad night whose rerun is bad too: alert (exit $rc)" test "$rc" = 3
check "... the first bad run is night 15's" \
	grep -q "since run nightly/20[0-9-]*-$HOST (.*); last good run nightly/20261114-020000-$HOST (kernel 6.1.0-flat)" "$d/o2.17"

# thp_storm's host guard gave up on its case: the night measured the rest.
FAKE_LINES=$(lines 18 5 | grep -v thp_storm) FAKE_DISTURB="thp_storm threads=1" FAKE_SEED=18 \
	FAKE_KERNEL=6.1.0-bad "$NIGHTLY" "$d/n2.conf" >"$d/o2.18" 2>"$d/e2.18"
rc=$?
check "a case the host disturbed: exit 0, not 1 or 3 (got $rc)" test "$rc" = 0
check "... the verdict says not measured" \
	grep -q "^mmbench nightly on $HOST: ok (a case not measured: the host disturbed it)" "$d/o2.18"
check "... the run line names the case" \
	grep -q "^run: not_measured: not measured: thp_storm \[threads=1\]: the host disturbed it (storm of iteration 0 disturbed in 6 attempts" "$d/o2.18"
check "... its metric is not called missing" test -z "$(grep MISSING "$d/o2.18")"
row=$("$MMHISTORY" select "$r2/res/history.csv" --last 1 --fields status,reason)
check "... history.csv says not_measured ($row)" grep -q "^not_measured	not measured: thp_storm \[threads=1\]" <<<"$row"

# The host gate: 14 flat nights whose suites had 5% of the CPUs taken by
# other processes, then two bad nights (5 sd, the rerun too) with 60%
# taken: the change is the host's, no alert; the same nights with the share
# as before alert on the second (confirmed, and the rerun reproduces it).
gate() { # NAME BUSY_AFTER [CONF_LINE]: exit of the second bad night
	# (GATE_BEFORE: the busy share before, 5.0; GATE_STEP: the step, 5 sd
	# worse; negative: better)
	local g=$d/$1 n rc
	flat_history "$1" "$1.conf" --meta "nightly_host_busy_pct=${GATE_BEFORE:-5.0}" || return 2
	[ -z "${3:-}" ] || echo "$3" >>"$d/$1.conf"
	for n in 15 16; do
		MMBENCH_NIGHTLY_HOST_BUSY="$2 0.0" FAKE_LINES=$(lines "$n" "${GATE_STEP:-5}") \
			FAKE_RERUN_LINES=$(lines "$((500 + n))" "${GATE_STEP:-5}") FAKE_SEED=$n FAKE_KERNEL=6.1.0-bad \
			"$NIGHTLY" "$g.conf" >"$g/out.$n" 2>"$g/err.$n"
		rc=$?
		[ "$n" = 16 ] || [ "$rc" = 0 ] || { echo "night $n exited $rc" >&2; return 2; }
	done
	return "$rc"
}
gate gate-busy 60.0
rc=$?
check "the host 55 points busier after the change: no alert (exit $rc)" test "$rc" = 0
check "... the summary says the host was busier" \
	grep -q "^  watch  pageout loops_per_s \[instances=1\]: .*: not an alert: the host was busier after it" "$d/gate-busy/out.16"
check "... nightly_host_busy_pct recorded as given" \
	grep -qx 'nightly_host_busy_pct,60.0' "$(sed -n 's/^run: .*; results //p' "$d/gate-busy/out.16")/meta.csv"
gate gate-same 5.0
rc=$?
check "the same nights with the host as busy as before: alert (exit $rc)" test "$rc" = 3
# The other way round: 5 sd better while the host, 60% busy before,
# left the suite alone: not the kernel's, no better line.
GATE_BEFORE=60.0 GATE_STEP=-5 gate gate-idle 5.0
check "5 sd better with the host 55 points idler after it: a watch line, not better" \
	grep -q "^  watch  pageout loops_per_s \[instances=1\]: +.*: not the kernel's: the host was busier before it (others used 5% of the CPUs after it, 60% before)$" "$d/gate-idle/out.16"
GATE_STEP=-5 gate gate-idle-same 5.0
check "... and with the host as busy as before: a better line" \
	grep -q "^  better pageout loops_per_s \[instances=1\]: +" "$d/gate-idle-same/out.16"
# The rule's thresholds are the config's: the same nights under a size
# threshold of 20 sd are no alert.
gate sd-20 5.0 "change_min_sd = 20"
rc=$?
check "change_min_sd = 20: the same nights, no alert (exit $rc)" test "$rc" = 0
check "... the change is seen and said to be under change_min_sd" \
	grep -q "^  watch  pageout loops_per_s \[instances=1\]: .*: not an alert: smaller than --min-sd (the nightly's change_min_sd), even with tonight's rerun$" "$d/sd-20/out.16"

# runs = 2: two invocations of the suite, two run directories of the same
# label and night (one date in the history), each a point of the history.
sed -i 's/^runs = 1$/runs = 2/' "$d/n2.conf"
: >"$FAKE_LOG"
FAKE_LINES=$(lines 19 5) FAKE_SEED=19 FAKE_KERNEL=6.1.0-bad "$NIGHTLY" "$d/n2.conf" >"$d/o2.19" 2>"$d/e2.19"
rc=$?
check "runs = 2: the night exits 0 (the regression is open already; got $rc)" test "$rc" = 0
check "runs = 2: the driver ran twice, as runs 1/2 and 2/2 with their own values" \
	test "$(grep -c 'rerun=0' "$FAKE_LOG")" = 2 -a -n "$(grep 'run=2 rerun=0 seed=1019' "$FAKE_LOG")"
rows=$("$MMHISTORY" select "$r2/res/history.csv" --last 2 --fields date,status,label)
check "runs = 2: two history rows of one night ($(paste -sd' ' <<<"$rows"))" \
	test "$(sort -u <<<"$rows" | wc -l)" = 1 -a "$(wc -l <<<"$rows")" = 2
check "runs = 2: the summary names the second run" grep -q "^  also: $r2/res/nightly/[0-9-]*-$HOST (ok)" "$d/o2.19"
check "runs = 2: the history counts both" grep -q "^history of $HOST: 22 run(s) over 19 night(s)" "$d/o2.19"
check "history.csv valid" grep -q "valid" <("$MMHISTORY" check "$r2/res/history.csv")
finish
