#!/usr/bin/env bash
# Compaction of large folios (EXPERIMENTS.md section 4) on the real pair,
# small: bookworm (6.1) vs trixie (6.12) in the VM lab (QEMU TCG, 2 nodes x
# 1 GiB), compact_folio source=auto (6.1: xfs page cache on the xfs data
# disk the suite's "# vm-fs: xfs" line asks for; 6.12: anonymous mTHP, its
# data disk xfs by --vm-fs):
#  - every iteration on both kernels reached folios (folios_scanned > 0);
#  - 6.1 moved none of them whole (moved_whole_pct 0 in every iteration,
#    every scanned folio untouched), 6.12 moved most (mean >= 50%);
#  - mmcompare names moved_whole_pct better and significant;
#  - the bad inputs in a guest: source=anon on 6.1 (no mTHP size) and
#    source=xfs off xfs are skips with the reason, nothing emitted; the
#    data disk's file system is in meta.csv; --vm-fs btrfs is refused.
. "$(dirname "$0")/../lib.sh"
vm=$TOP/tools/vm
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
export MMBENCH
MMCOMPARE=${MMCOMPARE:-$TOP/tools/mmcompare/mmcompare}

if ! [ -x "$vm/lab" ] || ! command -v qemu-system-x86_64 >/dev/null; then
	skip "compact_folio pair" "no VM lab (tools/vm/lab, qemu-system-x86_64)"
	finish
fi
if ! command -v mkfs.xfs >/dev/null; then
	skip "compact_folio pair" "no mkfs.xfs on the host (tools/deps.sh vm installs xfsprogs): the 6.1 guest has no xfs data disk"
	finish
fi

# --vm-fs takes ext4 or xfs only, refused before anything is fetched.
"$vm/lab" --vm bookworm --vm-fs btrfs --suite quick >"$t/out" 2>"$t/err"
rc=$?
check "lab: --vm-fs btrfs is a usage error naming the choices (rc=$rc)" \
	eval '[ $rc = 2 ] && grep -q "vm-fs: .btrfs. is not ext4 or xfs" "$t/err"'

# lab NAME KERNEL SUITE: one guest run; its run directory in $dir. The
# time limit only guards against a hang; a guest that died is run once
# more (as tests/vm/test_verdicts.sh does).
lab() {
	local name=$1 kernel=$2 suite=$3 rc try why
	shift 3
	for try in 1 2; do
		timeout -k 5 1200 "$vm/lab" --vm "$kernel" --out "$t/res" --timeout 600 \
			--suite "$suite" "$@" >"$t/out" 2>"$t/err"
		rc=$?
		dir=$(sed -n 's/^results: //p' "$t/out" | tail -n 1)
		[ "$rc" = 0 ] || echo "NOTE: $name: the lab exited $rc: $(grep -m 1 'FAILED' "$t/err")"
		[ -f "$dir/cases.csv" ] && return 0
		why="rc=$rc: $(grep -m 1 'FAILED' "$t/err" || tail -n 1 "$t/err")"
		[ "$try" = 1 ] && grep -q 'FAILED' "$t/err" || break
		echo "NOTE: $name: the guest failed, running it once more: $why"
	done
	fail "$name: lab run" "$why"
	finish
}
# case_of DIR SOURCE-WORD: the cases.csv row (status,reason) of that line
case_of() {
	"$MMBENCH" field "$1/cases.csv" case status reason |
		awk -F'\t' -v s="source=$2;" '$1 ~ s { print $2 "," $3 }'
}
# vals DIR METRIC: one value per iteration of the source=auto case
vals() {
	"$MMBENCH" field --where metric="$2" "$1/results.csv" case value |
		awk -F'\t' '$1 ~ /source=auto/ { print $2 }'
}

cat >"$t/old.suite" <<'EOF'
# vm-fs: xfs
compact_folio -p source=auto -p size_mb=16 -i 4 -w 1
compact_folio -p source=anon -p size_mb=16 -i 1 -w 0
compact_folio -p source=xfs -p dir=/tmp -p size_mb=16 -i 1 -w 0
EOF
# trixie's suite has no vm-fs line: the lab's option asks for xfs instead
echo 'compact_folio -p source=auto -p size_mb=16 -i 4 -w 1' >"$t/new.suite"
lab "bookworm" bookworm "$t/old.suite"
old=$dir
lab "trixie" trixie "$t/new.suite" --vm-fs xfs
new=$dir

for side in old new; do
	d=${!side}
	from=suite
	[ $side = new ] && from=option
	check "$side: the data disk is xfs, as the $from asked ($(meta_get "$d/meta.csv" vm_results_fs), $(meta_get "$d/meta.csv" vm_fs_from))" \
		eval '[ "$(meta_get "$d/meta.csv" vm_results_fs)" = xfs ] && [ "$(meta_get "$d/meta.csv" vm_fs_from)" = $from ]'
	row=$(case_of "$d" auto)
	[ "${row%%,*}" = pass ] && pass "$side: source=auto passed" ||
		fail "$side: source=auto passed" "cases.csv: $row; $(grep -E 'compact_folio: .*(fail|lost|precondition|no large)' "$d/run.log" | tail -n 2 | tr '\n' ' ')"
	sc=$(vals "$d" folios_scanned)
	check "$side: 4 iterations, every one reached folios ($(echo $sc))" \
		eval '[ "$(grep -c . <<<"$sc")" = 4 ] && awk "\$1 <= 0 { exit 1 }" <<<"$sc"'
done
mw=$(vals "$old" moved_whole_pct)
check "6.1: no folio moved whole, in any iteration ($(echo $mw))" \
	eval '[ "$(grep -c . <<<"$mw")" = 4 ] && awk "\$1 != 0 { exit 1 }" <<<"$mw"'
check "6.1: every scanned folio untouched, from the xfs page cache" \
	eval '[ "$(vals "$old" folios_untouched)" = "$(vals "$old" folios_scanned)" ] &&
	awk "\$1 != 0 { exit 1 }" <<<"$(vals "$old" source_anon)"'
mw=$(vals "$new" moved_whole_pct)
check "6.12: most scanned folios moved whole, on average ($(echo $mw))" \
	eval 'awk "{ s += \$1; n++ } END { exit !(n == 4 && s / n >= 50) }" <<<"$mw"'
check "6.1: source=anon is a skip naming the missing mTHP size ($(case_of "$old" anon))" \
	eval 'case_of "$old" anon | grep -q "^skip,.*hugepages-64kB"'
check "6.1: source=xfs on tmpfs is a skip: xfs missing ($(case_of "$old" xfs))" \
	eval 'case_of "$old" xfs | grep -q "^skip,.*xfs missing"'
check "bad inputs emitted nothing" \
	eval '! "$MMBENCH" field "$old/results.csv" case | grep -v source=auto | grep -q .'

COLUMNS=100 "$MMCOMPARE" "$old" "$new" >"$t/cmp.txt" 2>"$t/cmp.err"
check "mmcompare exits 0" [ $? -eq 0 ]
"$MMCOMPARE" --csv "$old" "$new" >"$t/cmp.csv" 2>/dev/null
read -r m sig verdict <<<"$("$MMBENCH" field --where metric=moved_whole_pct "$t/cmp.csv" side mean significant verdict |
	awk -F'\t' '$1 == 1 { print $2, $3, $4 }')"
check "verdict: moved_whole_pct 0 -> $m, better, significant ($verdict, $sig)" \
	eval '[ "$verdict" = better ] && [ "$sig" = 1 ]'
check "the text shows moved_whole_pct first among the evidence, better" \
	eval 'grep -Eq "^ +moved_whole_pct +0 .* better" "$t/cmp.txt"'
finish
