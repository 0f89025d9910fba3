#!/usr/bin/env bash
# mmbench list / info / sysinfo output, and usage errors (ASan+UBSan build).
. "$(dirname "$0")/../lib.sh"
mm=$MMBENCH_SAN
t=$(tmpdir); trap 'rm -rf "$t"' EXIT

out=$("$mm" list); rc=$?
[ $rc -eq 0 ] && grep -q '^pageout ' <<<"$out" && grep -q 'NEEDS' <<<"$out" &&
	pass "list: shows pageout with needs" || fail "list" "rc=$rc: $out"
n_wl=$(grep -c '^[[:space:]]*X([a-z0-9_]*)' "$TOP/workloads/registry.c")
n_list=$(awk 'NR > 1 && $1 != "" && $1 !~ /^\(/' <<<"$out" | grep -vc '^ ')
[ "$n_wl" = "$n_list" ] && pass "list: every registered workload listed ($n_wl)" ||
	fail "list: count" "registry has $n_wl, list shows $n_list"

out=$("$mm" info pageout); rc=$?
for p in instances size_mb duration_s dir backing; do
	grep -q "^$p " <<<"$out" || { fail "info: parameter $p" "missing in: $out"; continue; }
done
[ $rc -eq 0 ] && grep -q 'file|anon|shmem' <<<"$out" && pass "info: parameter table printed" ||
	fail "info" "rc=$rc"
"$mm" info nosuch >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown workload 'nosuch'" "$t/err" && pass "info: unknown workload is a usage error" ||
	fail "info unknown" "rc=$rc $(cat "$t/err")"

"$mm" sysinfo -o "$t/sys.csv" -x "$t/topo.xml"; rc=$?
grep -q '<topology' "$t/topo.xml" && grep -q 'type="NUMANode"' "$t/topo.xml" &&
	pass "sysinfo: hwloc topology saved as XML" || fail "sysinfo: topology" "no XML"
ok=1
for k in kernel_release kernel_version kernel_cmdline host cpu_model cpus numa_nodes \
	node_mem_mb hwloc_node_mem_mb thp_enabled thp_defrag thp_khugepaged_defrag \
	numa_balancing swap_devices swap_total_kb mmbench_version command_line; do
	grep -q "^$k," "$t/sys.csv" || { fail "sysinfo: key $k" "missing"; ok=0; }
done
[ $rc -eq 0 ] && [ $ok = 1 ] && pass "sysinfo: every comparison fact present"
[ $rc -eq 0 ] || fail "sysinfo -o -x" "rc=$rc"
[ "$(meta_get "$t/sys.csv" kernel_release)" = "$(uname -r)" ] &&
	pass "sysinfo: kernel release is the running one" || fail "sysinfo: release" ""
[ "$(meta_get "$t/sys.csv" cpus)" = "$(nproc)" ] && pass "sysinfo: cpu count matches nproc" ||
	fail "sysinfo: cpus" "$(meta_get "$t/sys.csv" cpus) vs $(nproc)"
mthp_dirs=$(ls /sys/kernel/mm/transparent_hugepage/hugepages-*kB/enabled 2>/dev/null | wc -l)
[ "$(grep -c '^mthp_[0-9]*kB_enabled,' "$t/sys.csv")" = "$mthp_dirs" ] &&
	pass "sysinfo: every mTHP size recorded ($mthp_dirs)" || fail "sysinfo: mthp" ""

# A write error (a full disk: /dev/full) on standard output or on the file
# of -o fails the command (exit 1) with a message naming where it wrote;
# --mirror the same at the end of the run, its rows on disk all the same.
[ -c /dev/full ] || fail "/dev/full" "absent: the write error checks cannot run"
full() {	# NAME WHERE CMD...: CMD (its stdout on /dev/full) exits 1, stderr says "writing WHERE: No space left"
	local name=$1 where=$2 rc
	shift 2
	"$@" >/dev/full 2>"$t/err"
	rc=$?
	[ $rc = 1 ] && grep -q "^mmbench $name: writing $where: No space left on device$" "$t/err" &&
		pass "$name: a write error on $where: exit 1, named" ||
		fail "$name: write error on $where" "rc=$rc $(head -c 300 "$t/err")"
}
full sysinfo "standard output" "$mm" sysinfo
full sysinfo /dev/full "$mm" sysinfo -o /dev/full
mkdir -p "$t/sum"
{ "$mm" field --header results.csv; "$mm" field --csv 1 r l k pageout a=1 0 m 5 ops higher; } >"$t/sum/results.csv"
full summary "standard output" "$mm" summary "$t/sum"
"$mm" summary "$t/sum" >/dev/null && pass "summary: exit 0 on a writable output" ||
	fail "summary on /dev/null" "exit $?"
"$mm" run pageout -p instances=1 -p size_mb=2 -p duration_s=0.05 -i 1 -w 0 --mirror /dev/full \
	-o "$t/mirror" >/dev/null 2>"$t/err"
rc=$?
[ $rc = 1 ] && grep -q '^mmbench: --mirror: a line could not be written: No space left on device; the mirror lacks lines of this run$' "$t/err" &&
	grep -q ',pageout,.*,pass,' "$t/mirror/cases.csv" && [ "$(awk 'NR > 1' "$t/mirror/results.csv" | wc -l)" -gt 0 ] &&
	pass "--mirror /dev/full: the case passes, its rows on disk, the run exits 1 naming the mirror" ||
	fail "--mirror /dev/full" "rc=$rc $(tail -2 "$t/err")"

# Usage errors: exit 2 with a message naming the input; nothing is created.
bad() {
	local name=$1 want=$2; shift 2
	"$mm" "$@" -o "$t/run-$name" >/dev/null 2>"$t/err"; rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$want" "$t/err" && [ ! -e "$t/run-$name/results.csv" ]; then
		pass "usage: $name"
	else
		fail "usage: $name" "rc=$rc, stderr: $(cat "$t/err")"
	fi
}
bad non-integer "parameter 'size_mb': 'abc' is not a decimal integer" run pageout -p size_mb=abc
bad range "parameter 'instances': 0 is outside" run pageout -p instances=0
bad enum "'tape' is not one of file|anon|shmem" run pageout -p backing=tape
bad unknown-param "unknown parameter 'bogus'" run pageout -p bogus=1
bad unknown-workload "unknown workload 'nosuch'" run nosuch
bad iterations "--iterations: 'x'" run pageout -i x
bad label "--label" run pageout --label 'a/b'
printf 'pageout -p size_mb=1\npageout -p size_mb=zz\n' >"$t/suite"
bad suite-line "$t/suite:2: pageout: parameter 'size_mb'" suite "$t/suite"
bad suite-missing "suite '$t/nosuch'" suite "$t/nosuch"
bad cpus-typo "'cpu' is not a decimal integer (or cpus)" run pageout -p instances=cpu

# mmbench check RULE VALUE: the C rules for shell (the nightly's alpha);
# check-label is check label.
chk() {	# NAME WANT_RC WANT_STDERR CHECK_ARGS...
	local name=$1 want_rc=$2 want=$3; shift 3
	"$mm" check "$@" >"$t/out" 2>"$t/err"; rc=$?
	if [ $rc -eq "$want_rc" ] && [ ! -s "$t/out" ] && { [ -z "$want" ] && [ ! -s "$t/err" ] ||
		[ -n "$want" ] && [ "$(cat "$t/err")" = "$want" ]; }; then
		pass "check: $name"
	else
		fail "check: $name" "rc=$rc, stdout: $(cat "$t/out"), stderr: $(cat "$t/err")"
	fi
}
for a in 0.05 .05 5e-2 0.999 1e-3; do chk "alpha $a" 0 "" alpha "$a"; done
for a in 1 0 +0.05 0x1 -0.05 "" " 0.05" 0.05x nan 1e-400; do
	chk "alpha '$a'" 2 "mmbench: --alpha '$a': want a decimal number between 0 and 1 (such as 0.05)" alpha "$a"
done
chk "label ok" 0 "" label base-6.1
chk "label ../x" 2 "mmbench: label '../x': '/' is not one of A-Z a-z 0-9 . _ - +" label ../x
"$mm" check-label ../x 2>"$t/err2"; rc=$?
[ $rc -eq 2 ] && cmp -s "$t/err" "$t/err2" && pass "check-label: as check label" ||
	fail "check-label" "rc=$rc, stderr: $(cat "$t/err2")"
chk "no such rule" 2 "mmbench check: no rule 'nosuch' (label, alpha, decimal, integer)" nosuch 5
"$mm" check alpha >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && grep -q '^       mmbench check label|alpha|decimal|integer VALUE$' "$t/err" &&
	pass "check: no value is a usage error with the usage" || fail "check: no value" "rc=$rc"

# "cpus" is the online CPU count; a value listed twice runs once.
"$mm" run pageout -p instances=1,cpus,1 -p size_mb=2 -p duration_s=0.05 -i 1 -w 0 \
	-o "$t/cpus" >/dev/null 2>&1
rc=$?
got=$("$MMBENCH" field "$t/cpus/cases.csv" case | sed 's/.*instances=//; s/;.*//' | tr '\n' ' ')
want="1 $([ "$(nproc)" -gt 1 ] && echo "$(nproc) ")"
[ $rc -eq 0 ] && [ "$got" = "$want" ] &&
	pass "params: instances=1,cpus,1 ran instances=${want% }" ||
	fail "params: cpus" "rc=$rc cases '$got', want '$want'"
finish
