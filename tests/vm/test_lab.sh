#!/usr/bin/env bash
# The VM lab end to end: Debian bookworm's kernel (6.1) under QEMU with two
# emulated NUMA nodes, the pageout workload inside it on ext4 over a RAM
# disk, results brought home; then guest-side failures (a failing case, a
# guest that never powers off, a panic, a run past its deadline) must come
# back as failures with the console's tail, never as a hang; last a pair,
# which ends with its comparison.
. "$(dirname "$0")/../lib.sh"
vm=$TOP/tools/vm
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
export MMBENCH

kd=$("$vm/fetch-kernel" bookworm 2>"$t/err") || {
	fail "lab: bookworm kernel" "$(tail -3 "$t/err")"; finish; }
rel=$(cat "$kd/release")
accel=$("$vm/kvm-probe" -k "$kd/vmlinuz")

cat >"$t/tiny" <<'EOT'
# 16 MiB file, one instance: MADV_PAGEOUT of a file-backed private mapping
pageout -p size_mb=16 -p duration_s=1 -p instances=1 -i 2 -w 0
EOT
# the failure cases and the pair need a case that runs, not statistics
echo "pageout -p size_mb=8 -p duration_s=0.2 -p instances=1 -i 1 -w 0" >"$t/fast"

# lab NAME LIMIT ARGS...: run the lab under a hard limit; rc in $rc,
# stdout in $t/out, stderr in $t/err, the result directory in $dir.
lab() {
	local name=$1 limit=$2; shift 2
	timeout -k 5 "$limit" "$@" >"$t/out" 2>"$t/err"
	rc=$?
	dir=$(sed -n 's/^results: //p' "$t/out" | tail -n1)
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		fail "$name: not a hang" "still running after ${limit}s: $(tail -5 "$t/err")"
		return 1
	fi
	return 0
}
meta() { "$MMBENCH" field --where key="$1" --last "$dir/meta.csv" value 2>/dev/null; }

# ---- a normal run, through run.sh's front door
lab "run" 240 "$TOP/run.sh" --vm bookworm --suite "$t/tiny" --out "$t/res"
[ $rc = 0 ] && [ -d "$dir" ] && pass "run: ./run.sh --vm bookworm ran the suite ($accel)" ||
	fail "run: exit status" "rc=$rc $(tail -25 "$t/err")"
if [ -d "$dir" ]; then
	[ "$(basename "$(dirname "$dir")")" = "$rel" ] && [ "$(basename "$dir")" = "$(meta run_id)" ] &&
		pass "run: results in ROOT/$rel/<run_id>" || fail "run: directory" "$dir"
	n=$(awk -F, 'NR > 1' "$dir/results.csv" | wc -l)
	bad=$("$MMBENCH" field "$dir/results.csv" label kernel | awk -F'\t' -v r="$rel" '$1 != r || $2 != r' | wc -l)
	[ "$n" -gt 0 ] && [ "$bad" = 0 ] &&
		pass "run: $n rows came back, kernel and label $rel (the guest's)" ||
		fail "run: rows" "$n rows, $bad with another kernel"
	po=$("$MMBENCH" field --where metric=pages_out_per_s "$dir/results.csv" value | awk '$1 > 0' | wc -l)
	[ "$po" = 2 ] && [ "$(meta vm_results_fs)" = ext4 ] &&
		pass "run: pages paged out of ext4's page cache on the RAM disk" ||
		fail "run: pageout in the guest" "pages_out rows>0: $po, fs $(meta vm_results_fs)"
	[ "$(meta numa_nodes)" = 2 ] && [ "$(meta vm_nodes)" = 2 ] &&
		[ "$(meta node_mem_mb | tr ';' '\n' | wc -l)" = 2 ] &&
		pass "meta: 2 NUMA nodes seen by the guest ($(meta node_mem_mb))" ||
		fail "meta: nodes" "numa_nodes=$(meta numa_nodes) node_mem_mb=$(meta node_mem_mb)"
	[ "$(meta vm)" = qemu ] && [ "$(meta vm_accel)" = "$accel" ] &&
		[ "$(meta host_kernel)" = "$(uname -r)" ] && [ "$(meta kernel_release)" = "$rel" ] &&
		pass "meta: vm=qemu, vm_accel=$accel, host_kernel, guest kernel_release" ||
		fail "meta: vm facts" "vm=$(meta vm) accel=$(meta vm_accel) host=$(meta host_kernel)"
	[ "$(meta numa_balancing)" = 0 ] && [ "$(meta vm_tracefs)" = /sys/kernel/tracing ] &&
		pass "meta: numa_balancing off in the guest, tracefs mounted" ||
		fail "meta: guest setup" "numa_balancing=$(meta numa_balancing) tracefs=$(meta vm_tracefs)"
	[ "$(grep -c '<object type="NUMANode"' "$dir/topology.xml" 2>/dev/null)" = 2 ] &&
		pass "topology.xml: the guest's hwloc topology, 2 NUMA nodes" || fail "topology.xml" ""
	[ "$(meta vm_status)" = ok ] && grep -q 'powered off' "$dir/run.log" &&
		pass "run.log and meta: the guest finished and powered off" || fail "vm_status" "$(meta vm_status)"
fi

# ---- a case that fails inside the guest
cat >"$t/failing" <<'EOT'
pageout -p dir=/nonexistent -p size_mb=16 -p duration_s=1 -p instances=1 -i 1 -w 0
EOT
if lab "failing case" 180 "$vm/lab" --vm bookworm --suite "$t/failing" --out "$t/res" --vm-swap 64M; then
	[ $rc = 1 ] && grep -q 'exited 1' "$t/err" && grep -q "^  | .*/nonexistent" "$t/err" &&
		pass "failing case: exit 1, reported with the guest console's tail" ||
		fail "failing case" "rc=$rc $(tail -5 "$t/err")"
	grep -q ',fail,' "$dir/cases.csv" 2>/dev/null && pass "failing case: cases.csv row came home" ||
		fail "failing case: cases.csv" ""
	[ "$(meta swap_total_kb)" -gt 60000 ] 2>/dev/null && [[ $(meta swap_devices) == /dev/zram0:* ]] &&
		pass "swap: --vm-swap 64M gives the guest zram swap" ||
		fail "swap" "swap_total_kb=$(meta swap_total_kb) devices=$(meta swap_devices)"
fi

# ---- a guest that never powers off
echo 'sleep 100000' >"$t/hang"
if lab "no power-off" 180 "$vm/lab" --vm bookworm --suite "$t/fast" --out "$t/res" \
	--vm-hook-post "$t/hang" --vm-poweroff-timeout 5; then
	[ $rc = 1 ] && grep -q 'did not power off within 5s' "$t/err" && grep -q '^  | ' "$t/err" &&
		pass "no power-off: a failure after 5 s, with the console's tail" ||
		fail "no power-off" "rc=$rc $(tail -5 "$t/err")"
	[ "$(meta vm_status)" = no-poweroff ] && [ "$(awk 'NR > 1' "$dir/results.csv" | wc -l)" -gt 0 ] &&
		pass "no power-off: the rows already sent are kept" || fail "no power-off: rows" ""
fi

# ---- a guest kernel panic in the middle of a case (the second one, 2 s
# after its started.csv row: tests/vm/panic-second-case).
echo "pageout -p size_mb=8 -p duration_s=0.2,60 -p instances=1 -i 1 -w 0" >"$t/long"
if lab "panic" 240 "$vm/lab" --vm bookworm --suite "$t/long" --out "$t/res" \
	--vm-hook-pre "$TOP/tests/vm/panic-second-case"; then
	[ $rc = 1 ] && grep -q 'panicked: Kernel panic - not syncing' "$t/err" &&
		grep -q 'during the case pageout \[.*duration_s=60;' "$t/err" &&
		pass "panic: a failure, with the panic message and the case" ||
		fail "panic" "rc=$rc $(tail -5 "$t/err")"
	[ "$(meta vm_status)" = panic ] && [ "$(meta kernel_release)" = "$rel" ] &&
		grep -q 'Kernel panic' "$dir/vm-console.log" &&
		pass "panic: recorded as a failed run (meta.csv, console log)" || fail "panic: record" ""
	# the first case passed; the second has the row the guest could not write
	last=$(tail -n 1 "$dir/cases.csv" 2>/dev/null)
	# by its name: columns were added after duration_s (libcsv reads it)
	dur=$("$MMBENCH" field --last "$dir/cases.csv" duration_s 2>/dev/null)
	[ "$(awk 'NR > 1' "$dir/cases.csv" | wc -l)" = 2 ] &&
		grep -q 'duration_s=0.2;.*,pass,' "$dir/cases.csv" &&
		[[ $last == *"duration_s=60;"*",fail,"*"the guest died during this case: panic: "*"Kernel panic"* ]] &&
		awk -v d="$dur" 'BEGIN { exit !(d >= 1 && d < 60) }' &&
		pass "panic: cases.csv names the case the guest died in (fail, ${dur}s)" ||
		fail "panic: the case in cases.csv" "$(tr '\n' '|' <"$dir/cases.csv" 2>/dev/null)"
fi

# ---- a guest that runs past the deadline
echo 'sleep 100000' >"$t/stall"
if lab "deadline" 180 "$vm/lab" --vm bookworm --suite "$t/fast" --out "$t/res" \
	--vm-hook-pre "$t/stall" --vm-timeout 15; then
	[ $rc = 1 ] && grep -q 'did not finish within 15s' "$t/err" && [ "$(meta vm_status)" = timeout ] &&
		pass "deadline: killed at --vm-timeout and reported" || fail "deadline" "rc=$rc $(tail -5 "$t/err")"
fi

# ---- a guest that goes silent (a stuck case) long before the deadline
if lab "silence" 180 "$vm/lab" --vm bookworm --suite "$t/fast" --out "$t/res" \
	--vm-hook-pre "$t/stall" --vm-idle-timeout 8; then
	[ $rc = 1 ] && grep -q 'sent no results for 8s' "$t/err" && [ "$(meta vm_status)" = idle-timeout ] &&
		pass "silence: killed after --vm-idle-timeout without output" ||
		fail "silence" "rc=$rc $(tail -5 "$t/err")"
	# its state, asked for before the kill (tools/vm/capture): the
	# registers of both vCPUs from the monitor, the guest kernel's dump of
	# its tasks, blocked tasks and CPUs (sysrq t, w, l)
	h=$dir/vm-hang.txt
	[ -f "$h" ] && [ "$(grep -c '^RIP=' "$h")" = 2 ] && grep -q 'sysrq: Show State' "$h" &&
		grep -q 'sysrq: Show Blocked State' "$h" && grep -q 'sysrq: Show backtrace of all active CPUs' "$h" &&
		grep -q '^\[ *[0-9.]*\] task:init  *state:' "$h" && grep -q "its state in vm-hang.txt" "$t/err" &&
		pass "silence: vm-hang.txt holds both vCPUs' registers and the guest's task (init's among them), blocked-task and CPU dumps" ||
		fail "silence: vm-hang.txt" "$(grep -c '^RIP=' "$h" 2>/dev/null) RIP lines; $(grep 'sysrq:' "$h" 2>/dev/null | tr '\n' ' ')"
fi

# ---- a guest that cannot reach init in time
if lab "boot deadline" 120 "$vm/lab" --vm bookworm --suite "$t/fast" --out "$t/res" --vm-boot-timeout 1; then
	[ $rc = 1 ] && grep -q 'did not reach init within 1s' "$t/err" && [ "$(meta vm_status)" = boot-timeout ] &&
		pass "boot deadline: a guest not at init by --vm-boot-timeout is a failure" ||
		fail "boot deadline" "rc=$rc $(tail -5 "$t/err")"
fi

# ---- a base/patched pair in one command: the release and a bzImage path
# (with its module tree), one label each; it ends with the comparison.
echo "migrate_ad -p size_mb=8 -i 3 -w 0" >"$t/pairsuite"
if lab "pair" 300 "$TOP/run.sh" --vm-pair "bookworm,$kd/vmlinuz" --vm-module-dir "$kd/lib/modules/$rel" \
	--label base --label patched --suite "$t/pairsuite" --out "$t/res"; then
	b=$(grep -c "^results: $t/res/base/" "$t/out")
	p=$(grep -c "^results: $t/res/patched/" "$t/out")
	[ $rc = 0 ] && [ "$b" = 1 ] && [ "$p" = 1 ] &&
		pass "pair: two runs back to back, labelled base and patched" ||
		fail "pair" "rc=$rc base=$b patched=$p $(tail -5 "$t/err")"
	[ "$(meta vm_kernel)" = "$kd/vmlinuz" ] && [ "$(meta vm_results_fs)" = ext4 ] &&
		pass "pair: the bzImage path booted with its own modules" ||
		fail "pair: path kernel" "vm_kernel=$(meta vm_kernel) fs=$(meta vm_results_fs)"
	# The verdict: what follows the results lines is the comparison's text
	# (compare.txt of the report directory, whatever its format), then the
	# report's path as the last line.
	report=$(tail -n 1 "$t/out" | sed -n 's/^report: //p')
	shown=$(awk '/^results: / { body = ""; next } /^report(\.html)?: / { exit } { body = body $0 "\n" } END { printf "%s", body }' "$t/out" | grep -v '^$')
	[ -n "$report" ] && [ -f "$report" ] && [ -s "$(dirname "$report")/compare.txt" ] &&
		[ "$shown" = "$(grep -v '^$' "$(dirname "$report")/compare.txt")" ] &&
		grep -q "$t/res/base/" "$report" && grep -q "$t/res/patched/" "$report" &&
		pass "pair: ends with the comparison's verdict and 'report: PATH' (base vs patched)" ||
		fail "pair: verdict" "report='$report' $(tail -n 5 "$t/out")"
fi
finish
