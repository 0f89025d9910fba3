#!/usr/bin/env bash
# mmbench on LAVA end to end (issue 14's acceptance), on a real local LAVA
# instance (tools/lava/instance: PostgreSQL, lava-server, two lava-dispatcher
# workers, two QEMU devices): a small suite as a LAVA job on a QEMU device
# with two NUMA nodes (Debian bookworm's kernel), its run directory fetched
# and read by mmbench summary and mmcompare like a local one; the job's test
# cases and measurements in LAVA; a base/patched pair on the two workers at
# the same time, compared; an Incomplete job (a guest that panics) and a
# Canceled one, each a failed run with LAVA's reason; SIGTERM while a job
# runs cancels it.
# Costly (packages, the server, TCG guests): `make check` runs it last and
# `make check-lava` alone (MMBENCH_LAVA_TEST=1); a skip in `make check-quick`.
. "$(dirname "$0")/../lib.sh"
if [ "${MMBENCH_LAVA_TEST:-0}" != 1 ]; then
	skip "lava: end to end" "needs a local LAVA instance and minutes of TCG guests: make check or make check-lava, not make check-quick"
	exit 4
fi
[ "$(id -u)" = 0 ] || { skip "lava: end to end" "needs root (the instance installs and starts services)"; exit 4; }
lava=$TOP/tools/lava/lava
inst=$TOP/tools/lava/instance
t=$(tmpdir)
export MMBENCH
. "$TOP/tools/lava/lib.sh"

# The instance: left as found (stopped at the end only if this test started it).
was_up=0
"$inst" status >/dev/null 2>&1 && was_up=1
cleanup() { [ "$was_up" = 1 ] || "$inst" down >/dev/null 2>&1; rm -rf "$t"; }
trap cleanup EXIT
s0=$SECONDS
if "$inst" up >"$t/up.out" 2>&1; then
	pass "instance: up ($((SECONDS - s0)) s, load $(cut -d' ' -f1-3 /proc/loadavg))"
else
	fail "instance: up" "$(tail -n 5 "$t/up.out")"
	finish
fi
"$inst" status >"$t/status" 2>&1 &&
	[ "$(grep -c '^mmbench-w[0-9]*: running' "$t/status")" -ge 2 ] &&
	[ "$(grep -c 'mmbench-qemu-[0-9]* (qemu)' "$t/status")" -ge 2 ] &&
	pass "instance: two workers and two QEMU devices" ||
	fail "instance: status" "$(cat "$t/status")"

# run NAME LIMIT ARGS...: tools/lava/lava under a hang guard; rc in $rc,
# the run directories in dirs[].
run() {
	local name=$1 limit=$2
	shift 2
	timeout -k 10 "$limit" "$lava" "$@" >"$t/out" 2>"$t/err"
	rc=$?
	mapfile -t dirs < <(sed -n 's/^results: //p' "$t/out")
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		fail "$name: not a hang" "still running after ${limit}s: $(tail -n 5 "$t/err")"
		return 1
	fi
}
meta() { meta_get "$1/meta.csv" "$2"; }

# ---- one small suite on a two-node QEMU device
echo "pageout -p size_mb=8 -p duration_s=0.2 -p instances=1 -i 3 -w 0" >"$t/tiny"
s0=$SECONDS
run "job" 1800 run --kernel bookworm --suite "$t/tiny" --out "$t/res"
d=${dirs[0]:-}
if [ "$rc" = 0 ] && [ -d "$d" ]; then
	pass "job: ran and came back ($((SECONDS - s0)) s, load $(cut -d' ' -f1-3 /proc/loadavg))"
else
	fail "job: exit status" "rc=$rc $(tail -n 20 "$t/err")"
	finish
fi
rel=$(cat "$(vm_cache_dir)/kernels/bookworm/current/release" 2>/dev/null)
[ "$(basename "$(dirname "$d")")" = "$rel" ] && [ "$(basename "$d")" = "$(meta "$d" run_id)" ] &&
	pass "job: the run is ROOT/$rel/<run_id>" || fail "job: directory" "$d (release $rel)"
missing=
for f in meta.csv results.csv cases.csv metrics.csv started.csv run.log topology.xml settings.lock; do
	[ -e "$d/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && pass "job: every file a local run writes came back" ||
	fail "job: files" "missing:$missing"
[ "$(meta "$d" numa_nodes)" = 2 ] && [ "$(meta "$d" vm_nodes)" = 2 ] &&
	pass "job: the guest saw two NUMA nodes ($(meta "$d" node_mem_mb))" ||
	fail "job: nodes" "numa_nodes=$(meta "$d" numa_nodes) vm_nodes=$(meta "$d" vm_nodes)"
id=$(meta "$d" lava_job_id) dev=$(meta "$d" lava_device)
lava_cli jobs show "$id" --yaml >"$t/show" 2>&1
[[ $id =~ ^[0-9]+$ ]] && [ "$(lava_yaml_get health <"$t/show")" = Complete ] &&
	[ "$(lava_yaml_get device <"$t/show")" = "$dev" ] && [ "$(meta "$d" lava_health)" = Complete ] &&
	pass "meta: LAVA job $id on $dev, Complete, as LAVA says" ||
	fail "meta: lava facts" "id=$id dev=$dev; LAVA: $(tr '\n' ' ' <"$t/show")"
"$MMBENCH" summary "$d" >"$t/sum" 2>&1 && grep -q '^cases: 1 pass, 0 fail' "$t/sum" &&
	grep -q 'pages_out_per_s' "$t/sum" &&
	pass "summary: mmbench summary reads the fetched run" ||
	fail "summary" "$(tail -n 5 "$t/sum")"
# LAVA's own view: the case as a test case, the evidence metrics as
# measurements (what its web UI shows).
lava_cli results "$id" --yaml >"$t/results" 2>&1
grep -q 'name: 01.pageout.backing_file' "$t/results" &&
	grep -B8 'name: 01.pageout.pages_out_per_s' "$t/results" | grep -q "measurement: '*[0-9]" &&
	grep -q 'name: mmbench' "$t/results" &&
	pass "LAVA: the case is a test case, pages_out_per_s a measurement" ||
	fail "LAVA: results" "$(grep 'name:' "$t/results" | tr '\n' ' ')"

# ---- a base/patched pair: both jobs at once on the two workers, compared
s0=$SECONDS
run "pair" 2400 run --pair bookworm,bookworm --label base --label patched --suite "$t/tiny" --out "$t/pair"
if [ "$rc" = 0 ] && [ ${#dirs[@]} = 2 ] && grep -q '^report: ' "$t/out"; then
	pass "pair: both ran and were compared ($((SECONDS - s0)) s, load $(cut -d' ' -f1-3 /proc/loadavg))"
else
	fail "pair: exit status" "rc=$rc $(tail -n 20 "$t/err")"
fi
if [ ${#dirs[@]} = 2 ]; then
	a=$(meta "${dirs[0]}" lava_job_id) b=$(meta "${dirs[1]}" lava_job_id)
	lava_cli jobs show "$a" --yaml >"$t/a" 2>&1
	lava_cli jobs show "$b" --yaml >"$t/b" 2>&1
	# LAVA's own record: each job started before the other ended, on
	# different devices and workers.
	sa=$(lava_yaml_get start_time <"$t/a") ea=$(lava_yaml_get end_time <"$t/a")
	sb=$(lava_yaml_get start_time <"$t/b") eb=$(lava_yaml_get end_time <"$t/b")
	if [ -n "$sa" ] && [ -n "$sb" ] && [[ $sa < $eb ]] && [[ $sb < $ea ]] &&
		[ "$(meta "${dirs[0]}" lava_worker)" != "$(meta "${dirs[1]}" lava_worker)" ]; then
		pass "pair: jobs $a and $b ran at the same time on $(meta "${dirs[0]}" lava_worker) and $(meta "${dirs[1]}" lava_worker)"
	else
		fail "pair: side by side" "job $a $sa..$ea on $(meta "${dirs[0]}" lava_worker), job $b $sb..$eb on $(meta "${dirs[1]}" lava_worker)"
	fi
	[ "$(meta "${dirs[0]}" label)" = base ] && [ "$(meta "${dirs[1]}" label)" = patched ] &&
		pass "pair: labels base and patched" || fail "pair: labels" "${dirs[*]}"
	"$TOP/tools/mmcompare/mmcompare" "${dirs[0]}" "${dirs[1]}" >"$t/cmp" 2>&1 &&
		grep -q 'pages_out_per_s' "$t/cmp" &&
		pass "mmcompare: reads the two fetched runs" || fail "mmcompare" "$(tail -n 5 "$t/cmp")"
fi

# ---- a guest that panics: LAVA marks the job Incomplete; a failed run
run "incomplete" 1200 run --kernel bookworm --suite "$t/tiny" --out "$t/bad" \
	--append "rdinit=/no/such/init"
d=${dirs[0]:-}
if [ "$rc" = 1 ] && [ -d "$d" ] && [ "$(meta "$d" lava_health)" = Incomplete ] &&
	[ -n "$(meta "$d" lava_failure)" ] && grep -q '^lava: FAILED: ' "$d/run.log"; then
	pass "incomplete: a failed run with LAVA's reason ($(meta "$d" lava_failure | cut -c1-120))"
else
	fail "incomplete" "rc=$rc dir=$d health=$(meta "$d" lava_health) $(tail -n 5 "$t/err")"
fi

# ---- a job cancelled in the queue or while it runs: a failed run too
timeout -k 10 600 "$lava" submit --kernel bookworm --suite "$t/tiny" >"$t/sub" 2>"$t/err"
id=$(sed -n 's/^job //p' "$t/sub")
if [[ $id =~ ^[0-9]+$ ]]; then
	lava_cli jobs cancel "$id" >/dev/null 2>&1
	run "cancelled" 600 collect --out "$t/cancel" "$id"
	d=${dirs[0]:-}
	[ "$rc" = 1 ] && [ -d "$d" ] && [ "$(meta "$d" lava_health)" = Canceled ] &&
		[ "$(meta "$d" lava_job_id)" = "$id" ] &&
		pass "cancelled: job $id is a failed run ($(meta "$d" lava_failure | cut -c1-100))" ||
		fail "cancelled" "rc=$rc dir=$d health=$(meta "$d" lava_health) $(tail -n 5 "$t/err")"
else
	fail "cancelled: submit" "$(tail -n 5 "$t/err")"
fi
# ---- stopped by SIGTERM while its job runs: the job is cancelled, what it
# sent is kept as a failed run, and the exit status is 128+15
"$lava" run --kernel bookworm --suite "$t/tiny" --out "$t/term" >"$t/out" 2>"$t/err" &
pid=$!
if wait_until 900 grep -q ': Running on ' "$t/err"; then
	kill -TERM "$pid"
	wait_until 120 eval '! kill -0 $pid 2>/dev/null' || kill -KILL "$pid"
	wait "$pid"
	rc=$?
	d=$(sed -n 's/^results: //p' "$t/out" | tail -n 1)
	# Canceling: the worker had not yet noticed within the 50 s given
	[ "$rc" = 143 ] && [ -d "$d" ] && [[ $(meta "$d" lava_health) == Cancel* ]] &&
		pass "SIGTERM: job cancelled, a failed run kept, exit 143" ||
		fail "SIGTERM" "rc=$rc dir=$d health=$(meta "$d" lava_health) $(tail -n 5 "$t/err")"
else
	kill -TERM "$pid" 2>/dev/null; wait "$pid"
	fail "SIGTERM: the job never ran" "$(tail -n 5 "$t/err")"
fi
finish
