#!/usr/bin/env bash
# The reference benchmarks' statistics (tools/selfbench/lib.sh) on known
# numbers, and the reference storm (tools/selfbench/ref_thpscale) on this
# kernel: it runs, prints its line, and its classes add up. No timing is
# judged: only what the numbers must be.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
. "$TOP/tools/selfbench/lib.sh"

# 1..10: mean 5.5, sample sd 3.0276504, CoV 55.048%, MDC@10 = (t(0.975,18)
# + t(0.8,18)) x CoV x sqrt(0.2) = (2.100922 + 0.862049) x 55.048188 x
# 0.447214 = 72.943% (the quantiles from mpmath; bench/results/mdc.h's formula).
seq 1 10 >"$t/v"
read -r n m sd cov mdc < <(bench_stats "$t/v")
[ "$n" = 10 ] && [ "$m" = 5.5 ] && [ "$sd" = 3.02765 ] && [ "$cov" = 55.048 ] && [ "$mdc" = 72.943 ] &&
	pass "bench_stats: n, mean, sample sd, CoV and MDC@10 of 1..10" ||
	fail "bench_stats" "got: $n $m $sd $cov $mdc"
printf '7\n7\n7\n' >"$t/c"
read -r n m sd cov mdc < <(bench_stats "$t/c")
[ "$cov" = 0.000 ] && [ "$mdc" = 0.000 ] && pass "bench_stats: constant values, CoV 0" || fail "bench_stats constant" "$cov $mdc"
# bench_floor_cpu / _mem / _thp (tools/selfbench/floor): each call appends
# N numbers of milliseconds (what they measure is the machine's; only the
# form is checked); bench_floor_report reads them back
bench_floor_cpu "$t/fc" 1 && bench_floor_cpu "$t/fc" 2 && bench_floor_mem "$t/fm" 1
[ "$(wc -l <"$t/fc")" = 3 ] && [ "$(wc -l <"$t/fm")" = 1 ] &&
	awk '!($1 ~ /^[0-9]+\.[0-9][0-9][0-9]$/ && $1 > 0) { bad = 1 } END { exit bad }' "$t/fc" "$t/fm" &&
	[[ $(bench_floor_report "$t/fc" "a loop") == "  context: a loop, timed 3 times: mean "*" ms, CoV "*"%: the machine's own spread" ]] &&
	[[ $(bench_floor_context 0 "$t/fc" /dev/null "a loop") == "  context: a loop, timed 3 times: mean "*" ms, CoV "*"%: the machine's own spread" ]] &&
	pass "bench_floor_cpu/mem: N positive millisecond figures per call; bench_floor_report and _context (rc 0) state n, mean and CoV" ||
	fail "bench floors" "$(cat "$t/fc" "$t/fm")"
printf 'floor: first\nfloor: the reason\n' >"$t/ferr"
[ "$(bench_floor_context 1 "$t/fc" "$t/ferr" "a loop")" = "  context: a loop: not measured: floor: the reason" ] &&
	pass "bench_floor_context: a floor that failed is said with its last line, not reported" ||
	fail "bench_floor_context" "$(bench_floor_context 1 "$t/fc" "$t/ferr" "a loop")"
# floor thp gives up when the host takes memory back during 6 attempts of
# one storm (this VM hands memory back every few seconds): that is the
# host's, said as a skip; otherwise 2 figures
bench_floor_thp "$t/ft" 2 2>"$t/err"
rc=$?
if [ $rc = 1 ] && grep -q '^floor: storm [0-9]*: the host took back memory (reported_kib) during each of 6 attempts, the last [0-9]* KiB: no undisturbed storm to time$' "$t/err"; then
	skip "floor thp figures" "$(tail -n 1 "$t/err")"
else
	[ $rc = 0 ] && [ "$(wc -l <"$t/ft")" = 2 ] &&
		awk '!($1 ~ /^[0-9]+\.[0-9][0-9][0-9]$/ && $1 > 0) { bad = 1 } END { exit bad }' "$t/ft" &&
		pass "bench_floor_thp: 2 positive figures" || fail "floor thp" "rc=$rc $(cat "$t/ft" "$t/err")"
fi
"$TOP/tools/selfbench/floor" disk 1 2>"$t/err"
[ $? = 2 ] && grep -q '^usage: floor cpu|mem|thp N | floor io N DIR$' "$t/err" &&
	"$TOP/tools/selfbench/floor" cpu 2>/dev/null
[ $? = 2 ] && "$TOP/tools/selfbench/floor" io 2 2>/dev/null
[ $? = 2 ] && pass "floor: no count, no directory for io or an unknown kind, exit 2 with the usage" ||
	fail "floor usage" "$(cat "$t/err")"
# floor io: on a disk file system (the checkout's results/, not /tmp,
# which may be tmpfs) N figures, and its file gone afterwards; in memory
# (/dev/shm) and in a missing directory refused with the reason
io=$(mktemp -d "$TOP/results/floor-io.XXXXXX") && trap 'rm -rf "$t" "$io"' EXIT
bench_floor_io "$t/fi" 2 "$io" 2>"$t/err"
[ $? = 0 ] && [ "$(wc -l <"$t/fi")" = 2 ] && [ -z "$(ls -A "$io")" ] &&
	awk '!($1 ~ /^[0-9]+\.[0-9][0-9][0-9]$/ && $1 > 0) { bad = 1 } END { exit bad }' "$t/fi" &&
	pass "floor io: 2 positive millisecond figures, its file removed" ||
	fail "floor io" "$(cat "$t/fi" "$t/err"; ls -A "$io")"
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	"$TOP/tools/selfbench/floor" io 1 /dev/shm >"$t/out" 2>"$t/err"
	[ $? = 1 ] && [ ! -s "$t/out" ] && ! ls /dev/shm/floor-io.* >/dev/null 2>&1 &&
		grep -q '^floor: io: /dev/shm: 16384 of its pages stay cached after POSIX_FADV_DONTNEED' "$t/err" &&
		pass "floor io: a file system in memory (/dev/shm) refused, the reason named, the file removed" ||
		fail "floor io on tmpfs" "$(cat "$t/out" "$t/err")"
else
	skip "floor io on tmpfs" "/dev/shm is not tmpfs here"
fi
"$TOP/tools/selfbench/floor" io 1 "$io/missing" >"$t/out" 2>"$t/err"
[ $? = 1 ] && [ ! -s "$t/out" ] && grep -q "^floor: io: cannot create $io/missing/floor-io\.[0-9]*: No such file or directory$" "$t/err" &&
	pass "floor io: a missing directory refused, the path named" || fail "floor io missing dir" "$(cat "$t/err")"
for n in 0 10abc 100001 -3; do
	"$TOP/tools/selfbench/floor" cpu "$n" >"$t/out" 2>"$t/err"
	[ $? = 2 ] && [ ! -s "$t/out" ] && grep -q "^floor: N '$n': a whole number from 1 to 100000$" "$t/err" || bad_n="$bad_n $n"
done
[ -z "${bad_n:-}" ] && pass "floor: a count of 0, 10abc, 100001 or -3 refused, the input named (exit 2)" || fail "floor N" "$bad_n"
"$TOP/tools/selfbench/floor" thp 100000 >"$t/out" 2>"$t/err"
[ $? = 1 ] && [ ! -s "$t/out" ] && grep -q '^floor: 100000 storms need 51200000 MiB, over half of MemAvailable' "$t/err" &&
	pass "floor thp: more storms than half of MemAvailable holds refused before any (exit 1, the need named)" ||
	fail "floor thp refusal" "$(cat "$t/out" "$t/err")"
# verdict: CoV 10% against 30% passes at max 20, not at max 5; ratio printed
printf '90\n110\n90\n110\n' >"$t/a"
printf '70\n130\n70\n130\n' >"$t/b"
bench_verdict x "$t/a" "$t/b" 20 >"$t/out"
rc=$?
[ $rc = 0 ] && grep -q 'x: CoV ratio mmbench/reference 0.333' "$t/out" && grep -q 'x: target .*: met' "$t/out" &&
	pass "bench_verdict: CoV 11.5% vs 34.6%, ratio 0.333, met under 20%" || fail "bench_verdict met" "rc=$rc $(cat "$t/out")"
bench_verdict x "$t/a" "$t/b" 5 >"$t/out"
[ $? = 1 ] && grep -q 'MISSED' "$t/out" && pass "bench_verdict: missed when over the absolute limit (exit 1)" ||
	fail "bench_verdict missed" "$(cat "$t/out")"
# the context line against a second series (70,130,70,130: sd 34.641, MDC
# 1.325078 x 34.641016 = 45.902), and the verdict over rounds
[ "$(bench_context_ratio "the other" "$t/a" "$t/b" us)" = "  context: the other mean 100 us, CoV 34.641%, MDC@10 45.902% (n=4); CoV ratio mmbench/it 0.333, mean ratio 1.0000" ] &&
	pass "bench_context_ratio: the other series' mean, CoV, MDC and both ratios" ||
	fail "bench_context_ratio" "$(bench_context_ratio "the other" "$t/a" "$t/b" us)"
# pooled: RMS of 3 and 4 is 3.54 (sqrt(12.5)), of 8 and 10 is 9.06
# (sqrt(82)), MDC@10 1.325078 times those: ratio 0.390, met under 5%,
# missed under 3%
printf '3\n4\n' >"$t/ca"
printf '8\n10\n' >"$t/cb"
bench_pooled_verdict x "$t/ca" "$t/cb" 5 /d >"$t/out" &&
	grep -q '^x: over 2 round(s), pooled CoV .*: mmbench 3.54% (MDC@10 4.68%), reference 9.06% (MDC@10 12.00%), ratio 0.390; load average ' "$t/out" &&
	grep -q '^x: target (pooled CoV at most half of the reference.s and under 5%): met$' "$t/out" && grep -q '^x: values and run directories in /d$' "$t/out" &&
	! bench_pooled_verdict x "$t/ca" "$t/cb" 3 /d | grep -q ': met$' && ! bench_pooled_verdict x "$t/cb" "$t/ca" 50 /d >/dev/null &&
	pass "bench_pooled_verdict: RMS of the rounds' CoVs, ratio, met only under both limits (else exit 1)" ||
	fail "bench_pooled_verdict" "$(cat "$t/out")"
echo 5 >"$t/one"
bench_verdict x "$t/one" "$t/b" 20 >/dev/null
[ $? = 2 ] && pass "bench_verdict: one value on a side is no verdict (exit 2)" || fail "bench_verdict n=1" ""

# The reference storm, small: every fault counted and classed (root) or
# the classes said unknown (-1).
ref=$TOP/tools/selfbench/ref_thpscale
if [ ! -x "$ref" ]; then
	fail "ref_thpscale" "not built (make tools/selfbench/ref_thpscale)"
	finish
fi
mode=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
if [ -z "$mode" ] || [ "$mode" = never ]; then
	skip "ref_thpscale" "THP is '${mode:-absent}'"
	finish
fi
mkdir -p "$t/data"
"$ref" 1 64 25 "$t/data" 0 2 >"$t/ref" 2>"$t/err"
rc=$?
[ $rc = 0 ] && [ "$(grep -c '^ref_thpscale iteration=[01] threads=1 faults=16 ' "$t/ref")" = 2 ] &&
	pass "ref_thpscale: 2 iterations of 16 faults (64 MiB / 2 MiB / 2)" || fail "ref_thpscale run" "rc=$rc $(cat "$t/ref" "$t/err")"
if [ "$(id -u)" = 0 ]; then
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	      if (v["huge"] < 0 || v["huge"] > v["faults"] || v["pct_huge"] != sprintf("%.4f", 100 * v["huge"] / v["faults"]) ||
	          (v["huge"] > 0) != (v["fault_huge_mean"] >= 0) || (v["huge"] < v["faults"]) != (v["fault_base_mean"] >= 0)) bad = 1 }
	     END { exit bad || NR == 0 }' "$t/ref" && pass "ref_thpscale: classes by kpageflags add up (root)" ||
		fail "ref_thpscale classes" "no line or classes that do not add up: $(cat "$t/ref")"
else
	skip "ref_thpscale classes" "not root (kpageflags)"
fi
ls "$t/data" | grep -q . && fail "ref_thpscale: refill file removed" "$(ls "$t/data")" ||
	pass "ref_thpscale: refill file removed (unlinked while open)"
finish
