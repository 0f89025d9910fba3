#!/usr/bin/env bash
# compact_folio on this machine, through the real driver and kernel: the
# bad inputs end their case with the reason and emit nothing; a small run
# (anonymous mTHP where this kernel has the size, 8 MiB of folios) gives
# consistent counts and restores every knob it changed. The kernel pair
# (0 on 6.1, most folios on 6.12) is tests/vm/test_compact_folio_pair.sh.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
THP=/sys/kernel/mm/transparent_hugepage
run() { # NAME ARGS...: mmbench run compact_folio into $t/NAME
	local n=$1
	shift
	"$MMBENCH" run compact_folio "$@" -o "$t/$n" >"$t/$n.out" 2>&1
}
reason() { "$MMBENCH" field "$t/$1/cases.csv" reason; }
status() { "$MMBENCH" field "$t/$1/cases.csv" status; }
no_rows() { [ ! -s "$t/$1/results.csv" ] || [ "$(wc -l <"$t/$1/results.csv")" -le 1 ]; }

"$MMBENCH" info compact_folio >"$t/info" 2>&1
grep -q '^moved_whole_pct  *evidence higher' "$t/info" &&
	pass "info: moved_whole_pct is the evidence, higher is better" ||
	fail "info" "$(head -n 30 "$t/info")"

if [ "$(id -u)" != 0 ]; then
	run noroot -i 1 -w 0
	[ "$(status noroot)" = skip ] && reason noroot | grep -q 'needs root' &&
		pass "not root: skip, naming root" || fail "not root" "$(cat "$t/noroot/cases.csv")"
	finish
fi

# ---- bad inputs
# xfs missing: the scratch directory is not on xfs here (or dir= names one
# that is not).
nonxfs=$t
[ "$(stat -f -c %T "$nonxfs")" = xfs ] && nonxfs=/proc
run noxfs -p source=xfs -p dir="$nonxfs" -i 1 -w 0
[ "$(status noxfs)" = skip ] && reason noxfs | grep -q 'xfs missing' && no_rows noxfs &&
	pass "bad input: source=xfs off xfs is a skip naming xfs, nothing emitted" ||
	fail "bad input: xfs missing" "$(cat "$t/noxfs/cases.csv" "$t/noxfs.out" | tail -n 4)"
# an order this kernel lacks: a size with no hugepages-<size>kB directory
lacking=
for o in 1 2 3 4 5 6 7 8; do
	[ -d "$THP/hugepages-$((4 << o))kB" ] || { lacking=$o; break; }
done
if [ -n "$lacking" ]; then
	run noorder -p source=anon -p order=$lacking -i 1 -w 0
	[ "$(status noorder)" = skip ] && reason noorder | grep -q "no .*hugepages-$((4 << lacking))kB" &&
		no_rows noorder && pass "bad input: order $lacking (no mTHP size here) is a skip naming the size" ||
		fail "bad input: order lacking" "$(cat "$t/noorder/cases.csv")"
else
	# Not a skip: the same refusal is checked where a kernel lacks the
	# size, in make check's tests/vm/test_compact_folio_pair.sh (6.1 has no
	# anonymous mTHP: source=anon is a skip naming hugepages-64kB).
	echo "# bad input: order the kernel lacks: this kernel has every mTHP size of order 1-8; checked on 6.1 by tests/vm/test_compact_folio_pair.sh"
fi
# xfs with order 1: readahead makes no order-1 page-cache folio
run order1 -p source=xfs -p order=1 -i 1 -w 0
[ "$(status order1)" != pass ] && no_rows order1 &&
	pass "bad input: source=xfs order=1 does not pass, nothing emitted ($(status order1))" ||
	fail "bad input: xfs order 1" "$(cat "$t/order1/cases.csv")"
# no fragmentation possible: more than the node's free memory
run toobig -p size_mb=65536 -i 1 -w 0
[ "$(status toobig)" = fail ] && reason toobig | grep -q 'no fragmentation possible in the memory given' &&
	no_rows toobig && pass "bad input: too big for the node fails before anything is mapped" ||
	fail "bad input: too big" "$(cat "$t/toobig/cases.csv")"
# no fragmentation possible: a filler too small to leave holes for the folios
run nofrag -p size_mb=32 -p filler_mb=1 -i 1 -w 0
[ "$(status nofrag)" = fail ] && reason nofrag | grep -q 'no fragmentation possible in the memory given: filler_mb=1' &&
	no_rows nofrag && pass "bad input: a 1 MiB filler for 32 MiB of folios fails naming the fragmentation" ||
	fail "bad input: no fragmentation" "$(cat "$t/nofrag/cases.csv" "$t/nofrag.out" | tail -n 5)"

# ---- a small run, where this kernel has anonymous mTHP
if [ ! -d "$THP/hugepages-64kB" ]; then
	skip "compact_folio run" "no anonymous mTHP (Linux 6.8+) on this kernel: tests/vm/test_compact_folio_pair.sh runs it in the VM lab"
	finish
fi
knobs="$THP/hugepages-64kB/enabled $THP/hugepages-32kB/enabled $THP/hugepages-2048kB/enabled /proc/sys/vm/compaction_proactiveness /proc/sys/vm/percpu_pagelist_high_fraction /proc/sys/kernel/numa_balancing"
before=$(for k in $knobs; do cat "$k" 2>/dev/null; done | tr '\n' '|')
run small -p source=anon -p size_mb=8 -i 2 -w 0
rc=$?
after=$(for k in $knobs; do cat "$k" 2>/dev/null; done | tr '\n' '|')
[ "$before" = "$after" ] && pass "knobs restored after the case (mTHP sizes, proactiveness, pcp lists, numa_balancing)" ||
	fail "knobs restored" "before '$before', after '$after'"
grep -q '^save,/proc/sys/vm/percpu_pagelist_high_fraction,' "$t/small/settings.journal" &&
	grep -q '^done,/proc/sys/vm/percpu_pagelist_high_fraction,' "$t/small/settings.journal" &&
	pass "journal: percpu_pagelist_high_fraction saved and restored" ||
	fail "journal" "$(cat "$t/small/settings.journal")"
# A busy host (other processes' memory all over the zone) may leave no
# room for the holes above the folios, or the scanner no way to them, three
# attempts in a row: that is the host's state, reported, not a wrong count.
busy=$(failed_only_for "$t/small/cases.csv" compact_folio "precondition failed|no fragmentation possible")
if [ -n "$busy" ]; then
	skip "compact_folio run" "this host's memory gave no layout compaction reaches: $(reason small)"
	finish
fi
if [ $rc = 0 ] && [ "$(status small)" = pass ]; then
	pass "run: 8 MiB of 64 KiB folios passes"
else
	fail "run" "rc=$rc $(tail -n 3 "$t/small.out")"
	finish
fi
res=$t/small/results.csv
# Per iteration: the classes of the scanned folios add up, the evidence is
# their share moved whole, and every folio is scanned or not reached.
bad=$("$MMBENCH" field "$res" iteration metric value | awk -F'\t' '{ v[$1, $2] = $3; it[$1] = 1 }
	END {
		for (i in it) {
			s = v[i, "folios_scanned"]; m = v[i, "folios_moved_whole"]
			if (s <= 0) print "iteration " i ": folios_scanned " s
			if (m + v[i, "folios_split"] + v[i, "folios_untouched"] > s)
				print "iteration " i ": moved + split + untouched > scanned"
			if (s > 0 && (v[i, "moved_whole_pct"] - 100 * m / s) ^ 2 > 1e-12)
				print "iteration " i ": moved_whole_pct " v[i, "moved_whole_pct"] " is not 100 x " m " / " s
			if (s + v[i, "folios_not_reached"] != v[i, "folios"])
				print "iteration " i ": scanned + not reached != folios"
			if (v[i, "folios_order_4"] != v[i, "folios"])
				print "iteration " i ": " v[i, "folios"] " folios, " v[i, "folios_order_4"] " of order 4"
		}
	}')
[ -z "$bad" ] && pass "counts: scanned folios classified, evidence = moved / scanned, all of order 4" ||
	fail "counts" "$bad"
metric_units "$res" moved_whole_pct:%:higher folios_scanned:folios:info folios_split:folios:lower
grep -q '^note_compact_folio_source,.*anonymous mTHP' "$t/small/meta.csv" &&
	pass "meta.csv: the folio source is recorded" || fail "meta.csv source" "$(grep compact_folio "$t/small/meta.csv")"
finish
