#!/usr/bin/env bash
# The verdicts the patch postings claim, from real kernel pairs in the VM
# lab (QEMU TCG, 2 nodes x 1 GiB), through mmcompare's default output:
#  - a/d bits across migration: bullseye (5.10) vs bookworm (6.1),
#    migrate_ad, 10 iterations, without and with --probe lru_add_drain:
#    every bookworm iteration reads Referenced >= 99 before and >= 95
#    after migration, and referenced_after_migrate_pct is better,
#    significant (exact), 0 -> ~100;
#  - mlock drain: bookworm (6.1) vs trixie (6.12), mlock_mix with --probe
#    lru_add_drain at mlock_pct=0,50: calls_per_migrated_page:lru_add_drain
#    is better and significant at both, ~1.0 -> ~0.0 and ~1.0 -> ~0.5;
#  - in both, the verdict counts these evidence rows and no TCG time, and
#    the default text of migrate_ad fits in 40 lines.
. "$(dirname "$0")/../lib.sh"
vm=$TOP/tools/vm
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
export MMBENCH
MMCOMPARE=${MMCOMPARE:-$TOP/tools/mmcompare/mmcompare}

if ! [ -x "$vm/lab" ] || ! command -v qemu-system-x86_64 >/dev/null; then
	skip "lab verdicts" "no VM lab (tools/vm/lab, qemu-system-x86_64)"
	finish
fi

# lab NAME KERNEL OUT ARGS...: one guest run; its run directory in $dir.
# The time limit only guards against a hang (a loaded TCG guest is slow).
# A guest that died (the lab's FAILED line: a panic, no power-off) brought
# back no complete run to judge: it runs once more, and the first failure
# is printed (a RERUN line, counted by tests/run) with the guest's own words.
lab() {
	local name=$1 kernel=$2 out=$3 rc try con why
	shift 3
	for try in 1 2; do
		timeout -k 5 1800 "$vm/lab" --vm "$kernel" --out "$out" --timeout 600 "$@" \
			>"$t/out" 2>"$t/err"
		rc=$?
		dir=$(sed -n 's/^results: //p' "$t/out" | tail -n 1)
		[ "$rc" = 0 ] && [ -f "$dir/results.csv" ] && return 0
		# one line: the lab's reason, then what the guest's console said
		con=$t/err
		[ -f "$dir/vm-console.log" ] && con=$dir/vm-console.log
		why="rc=$rc: $(grep -m 1 'FAILED' "$t/err" || tail -n 1 "$t/err");$(
			grep -E -m 4 'BUG|Oops|WARNING|RIP:|Call Trace|Kernel panic|soft lockup|rcu' \
				"$con" | tr -s '\r\n ' '   ')"
		[ "$try" = 1 ] && grep -q 'FAILED' "$t/err" || break
		rerun "$name" "the guest failed, running it once more: $why"
	done
	fail "$name: lab run" "$why"
	finish
}

# rows DIR METRIC: the values of METRIC, one per iteration.
rows() { "$MMBENCH" field --where metric="$2" "$1/results.csv" value; }

# no_timed_judged CSV: mmcompare's --csv has rows, and none is both timed
# and judged (columns by name, through libcsv: a quoted comma in an earlier
# field cannot shift them, and an empty file does not pass).
no_timed_judged() {
	local tj
	tj=$("$MMBENCH" field "$1" timed judged) && [ -n "$tj" ] && ! grep -q '^1	1$' <<<"$tj"
}

# --- section 2: a/d bits across migration
echo 'migrate_ad -p size_mb=64 -i 10 -w 1' >"$t/ad"
for probe in none lru_add_drain; do
	popt=()
	[ $probe = none ] || popt=(--probe "$probe")
	lab "ad bullseye ($probe)" bullseye "$t/ad-$probe" --suite "$t/ad" "${popt[@]}"
	old=$dir
	lab "ad bookworm ($probe)" bookworm "$t/ad-$probe" --suite "$t/ad" "${popt[@]}"
	new=$dir
	before=$(rows "$new" referenced_before_migrate_pct)
	after=$(rows "$new" referenced_after_migrate_pct)
	check "ad ($probe): bookworm: 10 iterations, every one Referenced >= 99 before migration" \
		eval '[ "$(wc -l <<<"$before")" -eq 10 ] && awk "\$1 < 99 { exit 1 }" <<<"$before"'
	check "ad ($probe): bookworm: every iteration Referenced >= 95 after migration" \
		eval '[ "$(wc -l <<<"$after")" -eq 10 ] && awk "\$1 < 95 { exit 1 }" <<<"$after"'
	# 10 rows each: with none, an empty line compares as a string and
	# "\$1 > 1" is false (any awk): a missing metric would pass.
	obefore=$(rows "$old" referenced_before_migrate_pct)
	oafter=$(rows "$old" referenced_after_migrate_pct)
	check "ad ($probe): bullseye: the control holds (>= 99 before), 0 after, 10 iterations each" \
		eval '[ "$(grep -c . <<<"$obefore")" -eq 10 ] && [ "$(grep -c . <<<"$oafter")" -eq 10 ] &&
		awk "\$1 < 99 { exit 1 }" <<<"$obefore" && awk "\$1 > 1 { exit 1 }" <<<"$oafter"'
	COLUMNS=100 "$MMCOMPARE" "$old" "$new" >"$t/ad-$probe.txt" 2>"$t/cmp.err"
	check "ad ($probe): mmcompare exits 0" [ $? -eq 0 ]
	line=$(grep -E '^ +referenced_after_migrate_pct ' "$t/ad-$probe.txt")
	check "ad ($probe): verdict: referenced_after_migrate_pct 0 -> ~100, better, exact (got '$line')" \
		grep -Eq '^ +referenced_after_migrate_pct +0 +(9[5-9]|100)\.[0-9]+ +\+(9[5-9]|100)\.[0-9]+ pts +better +exact' <<<"$line"
	check "ad ($probe): the default text fits in 40 lines ($(wc -l <"$t/ad-$probe.txt"))" \
		[ "$(wc -l <"$t/ad-$probe.txt")" -le 40 ]
	"$MMCOMPARE" --csv "$old" "$new" >"$t/ad.csv" 2>/dev/null
	check "ad ($probe): no TCG time is judged; the verdict counts the evidence" \
		eval 'no_timed_judged "$t/ad.csv" &&
		tr -s "\n " "  " <"$t/ad-$probe.txt" | grep -Eq "Verdict: evidence [1-9][0-9]* better, 0 worse.*emulated times not judged"'
done

# --- section 3: mlock drain
echo 'mlock_mix -p threads=1 -p size_mb=16 -p mlock_pct=0,50 -p rounds=2 -i 5 -w 1' >"$t/ml.suite"
lab "mlock bookworm" bookworm "$t/ml-res" --suite "$t/ml.suite" --probe lru_add_drain
old=$dir
lab "mlock trixie" trixie "$t/ml-res" --suite "$t/ml.suite" --probe lru_add_drain
new=$dir
COLUMNS=100 "$MMCOMPARE" "$old" "$new" >"$t/ml.txt" 2>"$t/cmp.err"
check "mlock: mmcompare exits 0" [ $? -eq 0 ]
"$MMCOMPARE" --csv "$old" "$new" >"$t/ml.csv" 2>/dev/null
# workload,case,metric,...: side 1's row of the drain metric at a mlock_pct
drain() {
	"$MMBENCH" field --where metric=calls_per_migrated_page:lru_add_drain "$t/ml.csv" \
		case side mean significant verdict |
		awk -F'\t' -v p="(^|;)mlock_pct=$1(;|$)" '$2 == 1 && $1 ~ p { print $3, $4, $5 }'
}
base0=$("$MMBENCH" field --where metric=calls_per_migrated_page:lru_add_drain "$t/ml.csv" side mean |
	awk -F'\t' '$1 == 0 { print $2 }')
check "mlock: bookworm drains once per migrated page ($(echo $base0))" \
	eval '[ -n "$base0" ] && awk "\$1 < 0.95 || \$1 > 1.05 { exit 1 }" <<<"$base0"'
read -r m0 s0 v0 <<<"$(drain 0)"
read -r m50 s50 v50 <<<"$(drain 50)"
check "mlock_pct=0: ~1.0 -> ~0.0, better, significant (got $m0 $v0 $s0)" \
	eval '[ "$v0" = better ] && [ "$s0" = 1 ] && awk "BEGIN { exit !($m0 < 0.01) }"'
check "mlock_pct=50: ~1.0 -> ~0.5, better, significant (got $m50 $v50 $s50)" \
	eval '[ "$v50" = better ] && [ "$s50" = 1 ] && awk "BEGIN { exit !($m50 > 0.4 && $m50 < 0.6) }"'
check "mlock: the text verdict names both as better (exact or significant)" \
	eval '[ "$(grep -Ec "^ +calls_per_migrated_page:lru_add_drain .* better" "$t/ml.txt")" -eq 2 ]'
check "mlock: no TCG time is judged; the verdict counts the evidence" \
	eval 'no_timed_judged "$t/ml.csv" &&
	tr -s "\n " "  " <"$t/ml.txt" | grep -Eq "Verdict: evidence [2-9][0-9]* better, 0 worse.*emulated times not judged"'
finish
