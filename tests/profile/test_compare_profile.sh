#!/usr/bin/env bash
# mmcompare's text views with kernel profiles (--profile runs): after the
# verdict and after --all, per case the first lines of the profile
# difference (a function gone, one new), capped at 8 case lines, and the
# mmprofile command that shows everything (it runs); runs of one label
# pooled as mmcompare pools them; --csv and --markdown untouched; no
# block, and the same output, without profiles; a malformed profile.csv
# one line naming it, a torn one named on stderr, and the exit status
# (--fail-on-regression) as without profiles. Synthetic runs: no perf,
# no root.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/compare/gen.sh"
# mmcompare and mmprofile in their ASan/UBSan builds: every output of this
# test is scanned for a sanitizer report at the end.
MMC=$TOP/tests/compare/mmcompare.asan
mmp=$TOP/tests/profile/mmprofile.asan
export ASAN_OPTIONS=detect_leaks=1
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
for b in "$MMC" "$mmp"; do
	if [ ! -x "$b" ]; then
		fail "ASan/UBSan build" "${b#$TOP/} not built (make ${b#$TOP/})"
		finish
	fi
done

# fnv32 NAME: FNV-1a 32 of NAME as 4 little-endian bytes (what mmbench
# writes to profile/kernel_functions.fnv32 per kernel function)
fnv32() {
	local s=$1 h=2166136261 i c
	for ((i = 0; i < ${#s}; i++)); do
		printf -v c '%d' "'${s:i:1}"
		h=$(( ((h ^ c) * 16777619) & 0xffffffff ))
	done
	printf "\\x$(printf %02x $((h & 255)))\\x$(printf %02x $((h >> 8 & 255)))"
	printf "\\x$(printf %02x $((h >> 16 & 255)))\\x$(printf %02x $((h >> 24 & 255)))"
}
# kfuncs DIR NAME...: the run's kernel has these functions
kfuncs() {
	local d=$1 n
	shift
	mkdir -p "$d/profile"
	for n; do fnv32 "$n"; done >"$d/profile/kernel_functions.fnv32"
}
# profiled DIR WORKLOAD CASE CALLGRAPH ITERATIONS SYM:SELF[:CHILDREN]...:
# each iteration's profile.csv rows, then its commit row ("ok") in
# profile_iterations.csv, the same shares in every iteration
profiled() {
	local d=$1 wl=$2 case=$3 cg=$4 n=$5 label rid=${1##*/} i s sym self child
	shift 5
	label=$(meta_get "$d/meta.csv" label)
	[ -f "$d/profile.csv" ] || echo "schema,run_id,label,kernel,workload,case,profile,iteration,event,symbol,dso,self_pct,children_pct,samples,total_samples" >"$d/profile.csv"
	[ -f "$d/profile_iterations.csv" ] || echo "schema,run_id,label,kernel,workload,case,profile,iteration,event,freq_hz,callgraph,status,reason,start_s,end_s,total_samples,idle_samples,perf_data" >"$d/profile_iterations.csv"
	for ((i = 0; i < n; i++)); do
		for s; do
			IFS=: read -r sym self child <<<"$s"
			[ "$cg" = 1 ] && child=${child:-$self} || child=
			echo "1,$rid,$label,k-$label,$wl,$case,$wl-$rid,$i,cpu-clock,$sym,[kernel.kallsyms],$self,$child,10,1000"
		done >>"$d/profile.csv"
		echo "1,$rid,$label,k-$label,$wl,$case,$wl-$rid,$i,cpu-clock,499,$cg,ok,,1.0,2.0,1000,10,profile/$wl-$rid.perf.data" >>"$d/profile_iterations.csv"
	done
}
# pair ROOT [NEW_VALUES]: ROOT/base/b1 and ROOT/new/n1, workload wl, cases
# threads=1 and threads=2; on new lru_add_drain is gone and
# folio_batch_move_lru new (both kernels have both), old_fn and new_fn
# exist in one kernel only
pair() {
	local r=$1 nv=${2:-10 11 12} c
	mkrun "$r/base/b1" base
	mkrun "$r/new/n1" new
	for c in 1 2; do
		addrows "$r/base/b1" wl "size_mb=1;threads=$c" loops loops/s higher 10 11 12
		# shellcheck disable=SC2086
		addrows "$r/new/n1" wl "size_mb=1;threads=$c" loops loops/s higher $nv
		profiled "$r/base/b1" wl "size_mb=1;threads=$c" 1 3 shrink_folio_list:40 \
			lru_add_drain:10 old_fn:5 common:20:60
		profiled "$r/new/n1" wl "size_mb=1;threads=$c" 1 3 shrink_folio_list:30 \
			folio_batch_move_lru:12 new_fn:6 common:25:61
	done
	kfuncs "$r/base/b1" shrink_folio_list lru_add_drain folio_batch_move_lru old_fn common
	kfuncs "$r/new/n1" shrink_folio_list lru_add_drain folio_batch_move_lru new_fn common
}
# hide DIR...: move the runs' profile data aside (show DIR... brings it back)
hide() { local d; for d; do mkdir -p "$d.hidden" && mv "$d"/profile* "$d.hidden/"; done; }
show() { local d; for d; do mv "$d.hidden"/* "$d/" && rmdir "$d.hidden"; done; }
# block FILE: the kernel profiles block of a text view
block() { sed -n '/^Kernel profiles/,$p' "$1"; }

r=$t/p
pair "$r"
line1="  wl [threads=1] (children %): lru_add_drain 10.00 -> - (gone); folio_batch_move_lru - -> 12.00 (new); shrink_folio_list 40.00 -> 30.00"

# ---- the verdict view: the block after the verdict
COLUMNS=200 "$MMC" "$r/base" "$r/new" >"$t/v.out" 2>"$t/v.err"
rc=$?
b=$(block "$t/v.out")
if [ $rc = 0 ] && grep -qxF -- "$line1" <<<"$b" &&
	grep -qx '  wl \[threads=2\] (children %): .*lru_add_drain 10.00 -> - (gone).*' <<<"$b" &&
	[ "$(sed -n 1p <<<"$b")" = "Kernel profiles (--profile), % of the non-idle samples, base -> new; shown, not judged:" ] &&
	[ "$(grep -n '^Verdict:' "$t/v.out" | cut -d: -f1)" -lt "$(grep -n '^Kernel profiles' "$t/v.out" | cut -d: -f1)" ]; then
	pass "verdict view: per case the first lines of the profile difference (a function gone, one new), after the verdict"
else
	fail "verdict view" "rc=$rc: $(tail -6 "$t/v.out") $(cat "$t/v.err")"
fi

# the command it names shows every case and symbol (base-fn, new-fn too)
cmd=$(sed -n 's/^  every case and symbol: //p' "$t/v.out")
(cd "$TOP" && eval "$cmd") >"$t/cmd.out" 2>&1
rc=$?
if [ -n "$cmd" ] && [ $rc = 0 ] && grep -Eq 'base-fn +old_fn' "$t/cmd.out" &&
	grep -Eq 'new-fn +new_fn' "$t/cmd.out" && [ "$(grep -c '^wl  \[' "$t/cmd.out")" = 2 ] &&
	[[ $cmd == *mmprofile" $r/base $r/new" ]]; then
	pass "verdict view: the mmprofile command it prints runs and shows every case and symbol"
else
	fail "mmprofile command" "'$cmd' rc=$rc: $(head -3 "$t/cmd.out")"
fi

# ---- --all: the same block after the table
COLUMNS=200 "$MMC" --all "$r/base" "$r/new" >"$t/all.out" 2>"$t/all.err"
rc=$?
if [ $rc = 0 ] && [ "$(block "$t/all.out")" = "$b" ] && grep -q '^Hmean' "$t/all.out"; then
	pass "--all: the same kernel profiles block after the table"
else
	fail "--all" "rc=$rc: $(tail -5 "$t/all.out")"
fi

# ---- without the profile data: no block, the rest byte for byte the same;
# --csv and --markdown the same with and without profiles
for f in "" --all --csv --markdown; do
	COLUMNS=200 "$MMC" $f "$r/base" "$r/new" >"$t/with$f.out" 2>"$t/with$f.err"
	echo $? >"$t/with$f.rc"
done
hide "$r/base/b1" "$r/new/n1"
for f in "" --all --csv --markdown; do
	COLUMNS=200 "$MMC" $f "$r/base" "$r/new" >"$t/without$f.out" 2>"$t/without$f.err"
	echo $? >"$t/without$f.rc"
done
show "$r/base/b1" "$r/new/n1"
bad=
for f in "" --all; do
	n=$(wc -c <"$t/without$f.out")
	grep -q 'Kernel profiles\|mmprofile' "$t/without$f.out" && bad+=" '$f': a block without profiles;"
	head -c "$n" "$t/with$f.out" | cmp -s - "$t/without$f.out" ||
		bad+=" '$f': the text before the block differs;"
	cmp -s "$t/with$f.rc" "$t/without$f.rc" || bad+=" '$f': exit status;"
done
[ -z "$bad" ] && pass "no profiles: no block; with profiles the same text and exit status, the block appended" ||
	fail "without profiles" "$bad"
bad=
for f in --csv --markdown; do
	cmp -s "$t/with$f.out" "$t/without$f.out" && cmp -s "$t/with$f.err" "$t/without$f.err" &&
		cmp -s "$t/with$f.rc" "$t/without$f.rc" || bad+=" $f differs;"
	grep -q 'lru_add_drain\|Kernel profiles' "$t/with$f.out" && bad+=" $f has profiles;"
done
[ -z "$bad" ] && pass "--csv and --markdown: byte for byte the same with and without profiles" ||
	fail "--csv/--markdown" "$bad"

# ---- one label's runs pooled as mmcompare pools them (lru_add_drain 10
# in b1 and 20 in b2: 15), with --per-arg one side per argument
mkrun "$r/base/b2" base
for c in 1 2; do
	addrows "$r/base/b2" wl "size_mb=1;threads=$c" loops loops/s higher 10 11 12
	profiled "$r/base/b2" wl "size_mb=1;threads=$c" 1 3 shrink_folio_list:40 \
		lru_add_drain:20 old_fn:5 common:20:60
done
kfuncs "$r/base/b2" shrink_folio_list lru_add_drain folio_batch_move_lru old_fn common
COLUMNS=200 "$MMC" "$r/base" "$r/new" >"$t/pool.out" 2>"$t/pool.err"
COLUMNS=200 "$MMC" --per-arg "$r/base/b2" "$r/new" >"$t/perarg.out" 2>"$t/perarg.err"
COLUMNS=200 "$MMC" --per-arg "$r/base/b1" "$r/base/b2" >"$t/same.out" 2>"$t/same.err"
if grep -q '^  wl \[threads=1\] (children %): .*lru_add_drain 15.00 -> - (gone)' "$t/pool.out" &&
	grep -q '^  wl \[threads=1\] (children %): .*lru_add_drain 20.00 -> - (gone)' "$t/perarg.out" &&
	grep -q "every case and symbol: .*mmprofile --per-arg $r/base/b2 $r/new\$" "$t/perarg.out" &&
	grep -q '^  wl \[threads=1\] (children %): lru_add_drain 10.00 -> 20.00;' "$t/same.out"; then
	pass "sides as mmcompare's: a label's runs pooled (15.00), --per-arg one side per argument (20.00), one label twice with --per-arg"
else
	fail "sides" "$(block "$t/pool.out") / $(block "$t/perarg.out") / $(block "$t/same.out")"
fi
rm -rf "$r/base/b2"

# ---- capped: 12 cases, 8 lines and a count
m=$t/many
mkrun "$m/base/b1" base
mkrun "$m/new/n1" new
for c in $(seq 12); do
	addrows "$m/base/b1" wl "threads=$c" loops loops/s higher 10 11 12
	addrows "$m/new/n1" wl "threads=$c" loops loops/s higher 10 11 12
	profiled "$m/base/b1" wl "threads=$c" 0 2 a:40 b:10
	profiled "$m/new/n1" wl "threads=$c" 0 2 a:30 c:12
done
COLUMNS=200 "$MMC" "$m/base" "$m/new" >"$t/many.out" 2>"$t/many.err"
b=$(block "$t/many.out")
if [ "$(grep -c '^  wl \[threads=[0-9]*\] (self %): b 10.00 -> - (gone); c - -> 12.00 (new)' <<<"$b")" = 8 ] &&
	grep -qx '  4 more cases' <<<"$b" && [ "$(wc -l <<<"$b")" = 11 ]; then
	pass "12 profiled cases: 8 case lines, '4 more cases', the command"
else
	fail "cap" "$b"
fi

# ---- a malformed profile.csv: one line naming it, the exit status as
# without profiles (--fail-on-regression with a regression: 3; one run a
# side, so its time is judged by its iterations: --iterations-as-samples)
s=$t/slow
pair "$s" "5 6 7"
sed -i '1s/self_pct/selfish/' "$s/new/n1/profile.csv"
"$MMC" --iterations-as-samples --fail-on-regression "$s/base" "$s/new" >"$t/bad.out" 2>"$t/bad.err"
rc=$?
hide "$s/base/b1" "$s/new/n1"
"$MMC" --iterations-as-samples --fail-on-regression "$s/base" "$s/new" >"$t/bad0.out" 2>"$t/bad0.err"
rc0=$?
show "$s/base/b1" "$s/new/n1"
b=$(block "$t/bad.out")
if [ $rc = 3 ] && [ $rc0 = 3 ] && [ "$(wc -l <<<"$b")" = 1 ] &&
	[[ $b == "Kernel profiles not shown: $s/new/n1/profile.csv:1: not the header of schema"* ]] &&
	cmp -s "$t/bad.err" "$t/bad0.err" && ! grep -qi 'sanitizer' "$t/bad.err"; then
	pass "malformed profile.csv: one line naming it and the problem; exit 3 as without profiles"
else
	fail "malformed profile.csv" "rc=$rc (without profiles $rc0): $b $(cat "$t/bad.err")"
fi
"$MMC" "$s/base" "$s/new" >"$t/bad1.out" 2>"$t/bad1.err"
rc=$?
[ $rc = 0 ] && pass "malformed profile.csv, no --fail-on-regression: exit 0" ||
	fail "malformed profile.csv: exit" "$rc"

# a torn last line: left out and named on stderr, the rest shown
sed -i '1s/selfish/self_pct/' "$s/new/n1/profile.csv"
printf '1,n1,new,k-new,wl,size_mb=1;threads=1,wl-n1,0,cpu-clock,half' >>"$s/new/n1/profile.csv"
"$MMC" --iterations-as-samples --fail-on-regression "$s/base" "$s/new" >"$t/torn.out" 2>"$t/torn.err"
rc=$?
if [ $rc = 3 ] && grep -q 'lru_add_drain 10.00 -> - (gone)' "$t/torn.out" &&
	grep -q "^mmcompare: $s/new/n1/profile.csv:[0-9]*: incomplete last line (a torn write) left out\$" "$t/torn.err"; then
	pass "torn profile.csv: the last line left out and named on stderr, the block shown, exit 3 as before"
else
	fail "torn profile.csv" "rc=$rc: $(cat "$t/torn.err")"
fi
# ---- an interrupt-enable point. With a software clock a function where
# interrupts come back on holding >= 20% of a case's samples is said
# beside its difference (mmcompare, and mmprofile's text, markdown and
# --summary): pvm_irq_enable at 63 and 64% (threads=1). Not said at 19.9%
# (_raw_spin_unlock_irqrestore, threads=2), nor with cycles, a hardware
# event that interrupts code running with interrupts off (threads=3).
q=$t/irq
mkrun "$q/base/b1" base
mkrun "$q/new/n1" new
for c in 1 2 3; do
	addrows "$q/base/b1" wl "threads=$c" loops loops/s higher 10 11 12
	addrows "$q/new/n1" wl "threads=$c" loops loops/s higher 10 11 12
done
profiled "$q/base/b1" wl "threads=1" 0 2 pvm_irq_enable:63 shrink_folio_list:20
profiled "$q/new/n1" wl "threads=1" 0 2 pvm_irq_enable:64 shrink_folio_list:19
profiled "$q/base/b1" wl "threads=2" 0 2 _raw_spin_unlock_irqrestore:19.9 a:30
profiled "$q/new/n1" wl "threads=2" 0 2 _raw_spin_unlock_irqrestore:19.9 a:31
profiled "$q/base/b1" wl "threads=3" 0 2 pvm_irq_enable:50 a:30
profiled "$q/new/n1" wl "threads=3" 0 2 pvm_irq_enable:50 a:31
sed -i '/threads=3/s/,cpu-clock,/,cycles,/' "$q"/*/*/profile.csv "$q"/*/*/profile_iterations.csv
note='63.00 -> 64.00% of the samples at pvm_irq_enable, where interrupts come back on: code that runs with them off is not seen by cpu-clock'
COLUMNS=400 "$MMC" "$q/base" "$q/new" >"$t/irq.out" 2>"$t/irq.err"
b=$(block "$t/irq.out")
if [ "$(grep -c 'note:' <<<"$b")" = 1 ] && grep -qxF "    note: $note" <<<"$b" &&
	grep -A1 '^  wl \[threads=1\]' <<<"$b" | grep -qF "note: $note"; then
	pass "mmcompare: an interrupt-enable point at 63/64% of a case's cpu-clock samples noted under that case only"
else
	fail "mmcompare irq note" "$b"
fi
"$mmp" --summary "$q/base" "$q/new" >"$t/irqs.out" 2>>"$t/irq.err"
if [ "$(grep -c 'note:' "$t/irqs.out")" = 1 ] &&
	grep 'threads=1' "$t/irqs.out" | grep -qF "; note: $note"; then
	pass "mmprofile --summary: the note on the threads=1 line only"
else
	fail "mmprofile --summary irq note" "$(cat "$t/irqs.out")"
fi
"$mmp" "$q/base" "$q/new" >"$t/irqt.out" 2>>"$t/irq.err"
"$mmp" --markdown "$q/base" "$q/new" >"$t/irqm.out" 2>>"$t/irq.err"
if [ "$(grep -c 'of the samples at' "$t/irqt.out")" = 2 ] &&
	grep -qF '63.0% of the samples at pvm_irq_enable (interrupts turned back on' "$t/irqt.out" &&
	grep -qF '64.0% of the samples at pvm_irq_enable (interrupts turned back on' "$t/irqt.out" &&
	[ "$(grep -c 'of the samples at' "$t/irqm.out")" = 2 ] &&
	grep -qF '63.0% of the samples at pvm\_irq\_enable (interrupts turned back on' "$t/irqm.out"; then
	pass "mmprofile text and markdown: each side's share at the interrupt-enable point, threads=1 only"
else
	fail "mmprofile irq note" "$(grep 'samples at' "$t/irqt.out" "$t/irqm.out")"
fi

# ---- the focus functions first: the posting's claim is not buried under
# what else two unrelated releases changed (6.1 -> 6.12: the page copy
# moved to copy_mc_enhanced_fast_string, folio_copy and copy_page stopped
# running with larger shares than lru_add_drain_cpu); a callee by the
# kernel's naming (lru_add_drain_cpu for lru_add_drain) counts, a longer
# name without the underscore (lru_add_drainage) does not
# claimpair ROOT FOCUS: base and new of one case; FOCUS is the value of
# base's meta.csv note_profile_focus (mmbench writes the functions of
# --probe and the workload's default probes there, "WORKLOAD: F,F")
claimpair() {
	local r=$1 d
	mkrun "$r/base/b1" base
	mkrun "$r/new/n1" new
	[ -z "$2" ] || printf 'note_profile_focus,"%s"\n' "$2" >>"$r/base/b1/meta.csv"
	for d in "$r/base/b1" "$r/new/n1"; do
		addrows "$d" wl "mlock_pct=0" pages_per_s pages/s higher 10 11 12
	done
	profiled "$r/base/b1" wl "mlock_pct=0" 0 3 folio_copy:7.53 copy_page:6.78 \
		lru_add_drain_cpu:2.33 lru_add_drainage:3 migrate_pages:9 lru_add_drain_per_cpu:0.02
	profiled "$r/new/n1" wl "mlock_pct=0" 0 3 copy_mc_enhanced_fast_string:20.54 \
		migrate_pages:9.5 lru_add_drainage:0.6
	for d in "$r/base/b1" "$r/new/n1"; do
		kfuncs "$d" folio_copy copy_page lru_add_drain lru_add_drain_cpu lru_add_drainage \
			migrate_pages copy_mc_enhanced_fast_string lru_add_drain_per_cpu
	done
}
claimpair "$t/claim" "wl: migrate_pages_batch,lru_add_drain"
claimpair "$t/noclaim" ""
claimpair "$t/other" "otherwl: lru_add_drain"
COLUMNS=200 "$MMC" "$t/claim/base" "$t/claim/new" >"$t/claim.out" 2>"$t/claim.err"
COLUMNS=200 "$MMC" "$t/noclaim/base" "$t/noclaim/new" >"$t/noclaim.out" 2>>"$t/claim.err"
COLUMNS=200 "$MMC" "$t/other/base" "$t/other/new" >"$t/other.out" 2>>"$t/claim.err"
"$mmp" "$t/claim/base" "$t/claim/new" >"$t/claimp.out" 2>>"$t/claim.err"
"$mmp" --markdown "$t/claim/base" "$t/claim/new" >"$t/claimm.out" 2>>"$t/claim.err"
if grep -qxF '  wl (self %): lru_add_drain_cpu 2.33 -> - (focus, gone); folio_copy 7.53 -> - (gone); copy_page 6.78 -> - (gone)' "$t/claim.out" &&
	grep -qxF '  wl (self %): folio_copy 7.53 -> - (gone); copy_page 6.78 -> - (gone); lru_add_drain_cpu 2.33 -> - (gone)' "$t/noclaim.out" &&
	grep -qxF '  wl (self %): folio_copy 7.53 -> - (gone); copy_page 6.78 -> - (gone); lru_add_drain_cpu 2.33 -> - (gone)' "$t/other.out" &&
	[ "$(grep -m1 -E '^ +[0-9.-]+ +[0-9.-]+ +[-+][0-9.]+ ' "$t/claimp.out" | awk '{ print $4, $5, $6 }')" = "focus, gone lru_add_drain_cpu" ] &&
	grep -qxF '| lru\_add\_drain\_cpu | (kernel) | 2.33 | - | -2.33 | focus, gone |' "$t/claimm.out" &&
	! grep -q 'focus *lru_add_drainage' "$t/claimp.out" && ! grep -q 'focus.*lru_add_drain_per_cpu' "$t/claimp.out" &&
	grep -q 'lru_add_drain_per_cpu' "$t/claimp.out"; then
	pass "profile difference: the focus function's callee first (focus, gone), ahead of larger shares that vanished; not without the note or for another workload, not for a longer name, not for a callee under 0.5%"
else
	fail "focus first" "$(grep 'mlock_pct' "$t/claim.out" "$t/noclaim.out"; head -20 "$t/claimp.out"; cat "$t/claim.err")"
fi

# ---- a hostile note (a terminal escape in a function name): the file and
# line named, the name never printed
claimpair "$t/hostile" "wl: lru_add_drain"
printf 'note_profile_probes,"wl: lru\033[31m_add_drain"\n' >>"$t/hostile/base/b1/meta.csv"
line=$(wc -l <"$t/hostile/base/b1/meta.csv")
COLUMNS=200 "$MMC" "$t/hostile/base" "$t/hostile/new" >"$t/hostile.out" 2>"$t/hostile.err"
rc=$?
"$mmp" "$t/hostile/base" "$t/hostile/new" >"$t/hostilep.out" 2>"$t/hostilep.err"
rcp=$?
if [ $rc = 0 ] && [ $rcp = 2 ] &&
	grep -qxF "Kernel profiles not shown: $t/hostile/base/b1/meta.csv:$line: note_profile_probes is not \"WORKLOAD: FUNC,FUNC\" (kernel function names)" "$t/hostile.out" &&
	grep -qF "meta.csv:$line: note_profile_probes is not" "$t/hostilep.err" &&
	! grep -q $'\033' "$t/hostile.out" "$t/hostile.err" "$t/hostilep.out" "$t/hostilep.err"; then
	pass "a note_profile_probes with a terminal escape: meta.csv and its line named, never printed (mmcompare 0 with one line, mmprofile 2)"
else
	fail "hostile note" "rc=$rc rcp=$rcp $(grep -a 'not shown' "$t/hostile.out" | cat -v) $(cat -v "$t/hostilep.err")"
fi

# ---- kprobes armed while perf sampled (meta.csv note_profile_probes):
# their cost is in the probed functions' shares, said under the case
claimpair "$t/armed" "wl: lru_add_drain"
printf 'note_profile_probes,"%s"\n' "wl: lru_add_drain" >>"$t/armed/base/b1/meta.csv"
COLUMNS=200 "$MMC" "$t/armed/base" "$t/armed/new" >"$t/armed.out" 2>"$t/armed.err"
"$mmp" "$t/armed/base" "$t/armed/new" >"$t/armedp.out" 2>>"$t/armed.err"
"$mmp" --summary "$t/armed/base" "$t/armed/new" >"$t/armeds.out" 2>>"$t/armed.err"
if grep -qF '    note: kprobes armed while perf sampled on base (lru_add_drain): their cost (ftrace_trampoline, kprobe_*) counts in the probed functions'"'"' children shares; --probe none for a clean profile' "$t/armed.out" &&
	grep -qF '  base: 3 iteration(s), cpu-clock 499 Hz; kprobes on lru_add_drain were armed while perf sampled' "$t/armedp.out" &&
	! grep -q 'kprobes on' <(grep '^  new:' "$t/armedp.out") &&
	grep -qF '; note: kprobes armed while perf sampled on base (lru_add_drain)' "$t/armeds.out" &&
	! grep -q 'kprobes' "$t/claim.out" "$t/claimp.out"; then
	pass "kprobes armed while sampling: said under the case (mmcompare, mmprofile --summary) and on that side (mmprofile), not where none were"
else
	fail "armed note" "$(grep -i kprobe "$t/armed.out" "$t/armedp.out" "$t/armeds.out"; cat "$t/armed.err")"
fi

# ---- ASan/UBSan said nothing (leaks included) on any of the above
san=$(san_reports "$t"/*.err "$t"/*.out | tr '\n' ' ')
[ -z "$san" ] && pass "no sanitizer report in any output (mmcompare's and mmprofile's ASan/UBSan builds)" ||
	fail "sanitizer" "$san"
finish
