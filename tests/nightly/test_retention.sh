#!/usr/bin/env bash
# Retention removes only what it should: this host's runs older than
# retention_days, except the baseline, runs named in an open regression
# and the previous run; never another host's runs or runs not in the
# history; history.csv keeps naming only directories that exist. An
# interrupted retention pass is finished by the next start, inside the
# results root only.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
export MMBENCH=$FAKE FAKE_LINES="$(fake_lines 0)"
r=$d/res
# Every synthetic run gets its own minute: two runs of one label and host
# made within the same second must not share a directory.
now=$(date +%s) nruns=0
# old_run DAYS LABEL [HOST] [in-history]: a synthetic run (and its history
# row) DAYS days and a few minutes ago; sets RUN to its run_dir. Called
# directly, not in $(...): a failure must reach this shell's count.
old_run() {
	local days=$1 label=$2 h=${3:-$HOST} t s
	nruns=$((nruns + 1))
	t=$((now - days * 86400 - nruns * 60))
	s=$(date -d "@$t" +%Y%m%d-%H%M%S)
	RUN=$label/$s-$h
	if ! "$MMSYNTH" -o "$r/$RUN" --label "$label" --host "$h" --kernel "6.1.0-$days" \
		--stamp "$s" --seed "$days" --line "pageout instances=1 loops_per_s loops/s higher 100 1" \
		>"$d/synth.err" 2>&1; then
		fail "setup: mmsynth $RUN" "$(tail -n 2 "$d/synth.err")"
		return 1
	fi
	[ "${4:-yes}" = yes ] || return 0
	"$MMHISTORY" append "$r/history.csv" "date=$(date -u -d "@$t" +%Y-%m-%dT%H:%M:%SZ)" \
		"host=$h" "label=$label" "kernel=6.1.0-$days" "run_dir=$RUN" status=ok duration_s=5 \
		2>"$d/synth.err" || fail "setup: history row of $RUN" "$(cat "$d/synth.err")"
}
ago() { date -u -d "@$((now - $1 * 86400))" +%Y-%m-%dT%H:%M:%SZ; }

old_run 100 k1; old1=$RUN
old_run 95 base; base=$RUN
old_run 90 k1; named=$RUN
old_run 85 k2; old2=$RUN
"$MMHISTORY" append "$r/history.csv" "date=$(ago 80)" "host=$HOST" label=k1 kernel=6.1.0-80 \
	status=refused duration_s=0 "reason=MemAvailable too low" ||
	fail "setup: the refused row"
old_run 5 k1; recent=$RUN
old_run 100 k1 otherhost; other=$RUN
old_run 100 k1 "$HOST" no; manual=$RUN
check "setup: 7 distinct run directories" \
	test "$(printf '%s\n' "$old1" "$base" "$named" "$old2" "$recent" "$other" "$manual" | sort -u | wc -l)" -eq 7

# An open regression (against base) first seen in $named, on a metric
# tonight's suite does not measure, so it stays open.
for s in 1 2; do
	"$MMSYNTH" -o "$d/cmp$s" --label "c$s" --host "$HOST" --kernel k --stamp 20260101-00000$s \
		--seed "$s" --line "pageout instances=1 old_metric ns lower $((100 * s)) 1" >/dev/null
done
# (one run a side: its time judged by its iterations, to make the entry)
"$TOP/tools/mmcompare/mmcompare" --per-arg --iterations-as-samples --csv "$d/cmp1" "$d/cmp2" \
	>"$d/cmp.csv" 2>/dev/null
"$MMHISTORY" ledger-update "$r/regressions.csv" "$d/cmp.csv" --host "$HOST" --baseline base \
	--run "$named" --date "$(ago 90)" --kernel 6.1.0-90 >/dev/null
check "setup: one open regression naming the run of 90 days ago" \
	test "$("$MMHISTORY" ledger-runs "$r/regressions.csv" | sort -u)" = "$named"

write_conf "$d" <<'EOF2'
baseline = base
retention_days = 30
trends = no
compare_plots = no
EOF2
"$NIGHTLY" "$d/n.conf" >"$d/out" 2>&1
rc=$?
check "nightly with retention exits 0 (got $rc)" test "$rc" -eq 0
check "summary: removed 2 runs" grep -q "^retention: removed 2 run(s) of $HOST older than 30 days" "$d/out"
check "a run of 100 days ago is removed" test ! -e "$r/$old1"
check "a run of 85 days ago is removed, and its empty label directory" test ! -e "$r/k2"
check "the baseline run (95 days) is kept" test -d "$r/$base"
check "the run named in an open regression (90 days) is kept" test -d "$r/$named"
check "the recent run (5 days) is kept" test -d "$r/$recent"
check "another host's run (100 days) is kept" test -d "$r/$other"
check "a run not in the history (100 days) is kept" test -d "$r/$manual"
out=$("$MMHISTORY" check --dirs "$r/history.csv")
check "history.csv valid, every run_dir exists ($out)" grep -q "valid, 5 rows" <<<"$out"
rows=$("$MMHISTORY" select "$r/history.csv" --fields run_dir,status)
check "history.csv lost exactly the removed runs and the old refused row" test \
	"$(cut -f1 <<<"$rows" | sort | paste -sd' ')" = \
	"$(printf '%s\n' "$base" "$named" "$recent" "$other" \
		"$(sed -n 's|^run: ok; results '"$r"'/||p' "$d/out")" | sort | paste -sd' ')"
check "no retention journal left" test ! -e "$r/.nightly/expire-$HOST"

# An interrupted pass: its journal names runs already dropped from the
# history; the next start (refused here, to be quick) deletes them, but
# nothing outside the results root and nothing that is not a run.
mkdir -p "$r/k1/leftover" "$d/outside" "$r/k1/notarun"
touch "$r/k1/leftover/meta.csv" "$d/outside/meta.csv"
printf '%s\n' k1/leftover ../outside "$d/outside" k1/notarun >"$r/.nightly/expire-$HOST"
sed -i 's/^need_mem_mb = .*/need_mem_mb = 99999999/' "$d/n.conf"
"$NIGHTLY" "$d/n.conf" >"$d/out" 2>&1
rc=$?
check "the next start is refused on memory (exit $rc)" test "$rc" -eq 1
check "the interrupted pass is finished: the listed run is gone" test ! -e "$r/k1/leftover"
check "nothing outside the results root is removed" test -f "$d/outside/meta.csv"
check "a directory that is not a run is not removed" test -d "$r/k1/notarun"
check "the journal is gone" test ! -e "$r/.nightly/expire-$HOST"
finish
