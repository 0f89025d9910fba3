#!/usr/bin/env bash
# E-divisive means (tools/mmtrend/changepoint.c, the ASan/UBSan build) on
# tiny series with numbers worked out by hand: the statistic Q of a split,
# the best split, the permutation test (seeded from the values: the same
# answer every time), a change that lasts and one that is undone, a flat
# series; the nightly's rule on a short history; bad input.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
MMCHANGE=$TOP/tools/mmtrend/mmchange-san
[ -x "$MMCHANGE" ] || MMCHANGE=$TOP/tools/mmtrend/mmchange
ed() { printf '%s\n' "$@" | "$MMCHANGE" edivisive 2>&1; }
edq() { local t=$1; shift; printf '%s\n' "$@" | "$MMCHANGE" edivisive --qhat "$t" 2>&1; }

# Q(X, Y) = m k / (m + k) * (2/(m k) sum|X-Y| - sum_{i<j}|X_i-X_j| / C(m,2)
#                                             - sum_{i<j}|Y_i-Y_j| / C(k,2))
# 1 2 3 | 10 11 12: sum|X-Y| = 30 + 27 + 24 = 81, 2*81/9 = 18; within each
# side (1 + 2 + 1) / 3 = 4/3; Q = 9/6 * (18 - 8/3) = 23.
out=$(edq 3 1 2 3 10 11 12)
check "Q of 1 2 3 | 10 11 12 is 23 ($(head -1 <<<"$out"))" grep -qx "qhat 3 23" <<<"$out"
# 1 4 | 2 8 5: sum|X-Y| = 1 + 7 + 4 + 2 + 4 + 1 = 19, 2*19/6 = 19/3; within X
# 3/1, within Y (6 + 3 + 3)/3 = 4; Q = 6/5 * (19/3 - 7) = -0.8.
out=$(edq 2 1 4 2 8 5)
check "Q of 1 4 | 2 8 5 is -0.8 ($(head -1 <<<"$out"))" grep -qx "qhat 2 -0.8" <<<"$out"
# 0 0 | 1 1: 2*4/4 = 2, nothing within: Q = 4/4 * 2 = 2.
out=$(edq 2 0 0 1 1)
check "Q of 0 0 | 1 1 is 2" grep -qx "qhat 2 2" <<<"$out"
check "the best split of 1 2 3 10 11 12 is at 3, Q 23" grep -qx "best 3 23" <<<"$(ed 1 2 3 10 11 12)"

# Six points: any permutation that keeps {1,2,3} together at one end
# scores 23 as well (2 of the 20 ways to choose 3 of 6 for the left),
# so p is about 0.1: not a change at 0.05.
out=$(ed 1 2 3 10 11 12)
p=$(sed -n 's/^not kept p=//p' <<<"$out")
check "six points cannot show a change at 0.05 (p=$p, about 2/20)" \
	awk -v p="$p" 'BEGIN { exit !(p > 0.05 && p < 0.2) }'
check "... and no change is reported" test -z "$(grep '^change' <<<"$out")"
check "the same values give the same p (seeded from them)" test "$out" = "$(ed 1 2 3 10 11 12)"

# A level that drops after 10 nights: found at 10, with the smallest p 199
# permutations can give (1/200).
s1=(10 11 9 10 12 10 11 9 10 11 5 6 4 5)
out=$(ed "${s1[@]}")
check "a drop after 10 points: a change at 10, p=0.005" grep -qx "change 10 q=24.31746032 p=0.005" <<<"$out"
# A level that comes back (0 for 10, 20 for 10, 0 for 10): the second
# sample of a split may end before the series does (Matteson & James's
# kappa), so both ends of the block are found.
s2=()
for i in $(seq 10); do s2+=($((i % 3))); done
for i in $(seq 10); do s2+=($((20 + i % 3))); done
for i in $(seq 10); do s2+=($((i % 3))); done
out=$(ed "${s2[@]}")
check "a block that comes back: changes at 10 and 20" \
	test "$(grep '^change' <<<"$out" | cut -d' ' -f2 | paste -sd' ')" = "10 20"
out=$(ed 5 5 5 5 5 5 5 5)
check "a flat series: no change, p 1" test "$(grep -c '^change' <<<"$out")" = 0 -a -n "$(grep -x 'not kept p=1' <<<"$out")"

# The nightly's rule on the drop: 10 nights before it, 4 after. The
# yardstick: the night-to-night sd of the 10 before it, from their 9
# differences (1 -2 1 2 -2 1 -2 1 1: squares 21, sqrt(21 / 18) = 1.0801),
# which is above the pooled sd around the two levels (sqrt((8.1 + 2) / 12)
# = 0.9174); 10.3 - 5 = 5.3 is 4.907 of it: confirmed, for the worse.
out=$(printf '%s\n' "${s1[@]}" | "$MMCHANGE" edivisive --better higher 2>&1)
check "the rule: the drop is a confirmed change for the worse, 4.907 sd" \
	grep -qx "latest 10 worse confirmed: 10.3 -> 5, -51.46%, 4.907 sd, 4 runs over 4 nights after it" <<<"$out"
out=$(printf '%s\n' "${s1[@]}" | "$MMCHANGE" edivisive --better lower 2>&1)
check "... for a lower-is-better metric the same drop is better" grep -q "^latest 10 better confirmed: .* +51.46%" <<<"$out"
# Runs of one night share it: 4 runs after the drop, but on one night.
out=$( { for i in $(seq 10); do echo "$i ${s1[$((i - 1))]}"; done; printf '11 5\n11 6\n11 4\n11 5\n'; } |
	"$MMCHANGE" edivisive --better higher 2>&1)
check "four runs after the drop on one night: unconfirmed (needs 2 nights)" \
	grep -q "^latest 10 worse unconfirmed: .* 4 runs over 1 nights after it" <<<"$out"
out=$(printf '%s\n' 10 11 9 10 5 6 4 5 | "$MMCHANGE" edivisive --better higher 2>&1)
check "four nights before the drop: too young to judge" grep -q "^latest 4 worse young" <<<"$out"

# detect over a history (mmsynth runs, history.csv): 12 flat nights at
# 100 (2% between runs), then 3 nights at 70: a new regression (exit 3),
# its first bad run and last good run in changes.csv; under ASan/UBSan.
r=$d/res
for n in $(seq 15); do
	s=$(printf '202611%02d-020000' "$n")
	m=$(noisy_mean "$n" "$([ "$n" -le 12 ] && echo 100 || echo 70)" 2)
	"$MMSYNTH" -o "$r/k/$s-h1" --label k --host h1 --kernel "6.1.0-$n" --stamp "$s" --seed "$n" \
		-i 3 --line "w c=1 rate ops/s higher $m 0.5" --line "w c=1 faults count lower 7 0" \
		>/dev/null &&
	"$MMHISTORY" append "$r/history.csv" "date=$(printf '2026-11-%02dT02:00:00Z' "$n")" host=h1 \
		label=k "kernel=6.1.0-$n" "run_dir=k/$s-h1" status=ok duration_s=1 || fail "setup: night $n"
done
"$MMCHANGE" detect "$r" --host h1 --csv "$d/ch.csv" --ledger "$r/regressions.csv" >"$d/out" 2>"$d/err"
rc=$?
check "detect: a new regression, exit 3 (got $rc)" test "$rc" = 3 -a ! -s "$d/err"
check "detect: it names the first bad and the last good run" \
	grep -q "^  WORSE  w rate \[c=1\]: -[0-9.]*% (Hmean .* since run k/20261113-020000-h1 (2026-11-13, kernel 6.1.0-13); last good run k/20261112-020000-h1 (kernel 6.1.0-12); 3 run(s) over 3 night(s) after it, p=.*: NEW$" "$d/out"
check "detect: the count without a spread is left to the comparisons" \
	grep -q "1 metric(s) with a spread judged by their change points, 1 of exact evidence" "$d/out"
check "detect: changes.csv says new, with the bracket" \
	test "$("$TOP/bench/mmbench" field --where ledger=new "$d/ch.csv" first_run last_good_run)" = \
	"$(printf 'k/20261113-020000-h1\tk/20261112-020000-h1')"
"$MMHISTORY" ledger-changes "$r/regressions.csv" "$d/ch.csv" --host h1 --run "$r/k/20261115-020000-h1" \
	--date 2026-11-15T02:00:00Z >"$d/led" 2>&1
check "ledger-changes opens the row" \
	grep -q "^  w rate \[c=1\]: worse in its history since 2026-11-13T02:00:00Z (first bad run k/20261113-020000-h1, kernel 6.1.0-13; last good run k/20261112-020000-h1)" "$d/led"
"$MMCHANGE" detect "$r" --host h1 --csv "$d/ch.csv" --ledger "$r/regressions.csv" --no-detectable >"$d/out" 2>"$d/err"
rc=$?
check "detect again: the same regression is open, not new (exit $rc)" test "$rc" = 0 -a -n "$(grep ': open$' "$d/out")"

# An open regression follows its change while the change is placed within
# 2 nights of its first bad run, whatever the runs a night: 2 runs a
# night, a drop at night 13 opened in the ledger; then the same runs but
# the drop placed at night 15 (4 runs, 2 nights later): still the open
# row, not a new regression.
two_runs() { # ROOT DROP_NIGHT LAST_NIGHT
	local n s m k
	for n in $(seq "$3"); do
		for k in 1 2; do
			s=$(printf '202611%02d-02%02d00' "$n" "$((k * 10))")
			m=$(noisy_mean "$((n * 2 + k))" "$([ "$n" -lt "$2" ] && echo 100 || echo 70)" 2)
			"$MMSYNTH" -o "$1/k/$s-h1" --label k --host h1 --kernel 6.1.0-x --stamp "$s" \
				--seed "$n$k" -i 3 --line "w c=1 rate ops/s higher $m 0.5" >/dev/null &&
			"$MMHISTORY" append "$1/history.csv" "date=$(printf '2026-11-%02dT02:00:00Z' "$n")" \
				host=h1 label=k kernel=6.1.0-x "run_dir=k/$s-h1" status=ok duration_s=1 ||
				fail "setup: night $n run $k"
		done
	done
}
two_runs "$d/t1" 13 15
"$MMCHANGE" detect "$d/t1" --host h1 --csv "$d/t1.csv" --ledger "$d/led.csv" --no-detectable >"$d/t1.out" 2>&1
rc=$?
check "2 runs a night, a drop at night 13: a new regression (exit $rc)" \
	grep -q "^  WORSE  w rate \[c=1\]: .* since run k/20261113-021000-h1 .*: NEW$" "$d/t1.out"
"$MMHISTORY" ledger-changes "$d/led.csv" "$d/t1.csv" --host h1 --run "$d/t1/k/20261115-022000-h1" \
	--date 2026-11-15T02:00:00Z >/dev/null 2>&1 || fail "ledger-changes of the drop at night 13"
two_runs "$d/t2" 15 17
"$MMCHANGE" detect "$d/t2" --host h1 --csv "$d/t2.csv" --ledger "$d/led.csv" --no-detectable >"$d/t2.out" 2>&1
rc=$?
check "... the drop placed 2 nights (4 runs) later: the open row, not new (exit $rc)" \
	grep -q "^  WORSE  w rate \[c=1\]: .* since run k/20261115-021000-h1 .*: open$" "$d/t2.out"

# Where the change is placed: between nights, and where the kernel
# changed when that is within 2 runs of the best split. 11 nights at 100
# (2%) on kernel A, night 12 at 71 (a host's bad night, still kernel A),
# nights 13-16 at 70 on kernel B: by the values alone the change starts at
# night 12; the kernel changed at night 13.
placed() { # ROOT KERNEL_OF_NIGHTS_13_16
	local n s m k
	for n in $(seq 16); do
		s=$(printf '202611%02d-020000' "$n")
		m=$(noisy_mean "$n" 100 2) k=6.1.0-a
		[ "$n" -lt 12 ] || m=$(noisy_mean "$n" 70 1)
		[ "$n" != 12 ] || m=71
		[ "$n" -lt 13 ] || k=$2
		"$MMSYNTH" -o "$1/k/$s-h1" --label k --host h1 --kernel "$k" --stamp "$s" --seed "$n" \
			-i 3 --line "w c=1 rate ops/s higher $m 0.5" >/dev/null &&
		"$MMHISTORY" append "$1/history.csv" "date=$(printf '2026-11-%02dT02:00:00Z' "$n")" host=h1 \
			label=k "kernel=$k" "run_dir=k/$s-h1" status=ok duration_s=1 || fail "setup: night $n"
	done
	"$MMCHANGE" detect "$1" --host h1 --csv "$1/ch.csv" --no-detectable >/dev/null 2>"$1/err"
	"$TOP/bench/mmbench" field --where metric=rate "$1/ch.csv" first_run last_good_run
}
got=$(placed "$d/same" 6.1.0-a)
check "one kernel throughout: the change starts where the values say, night 12 ($got)" \
	test "$got" = "$(printf 'k/20261112-020000-h1\tk/20261111-020000-h1')"
got=$(placed "$d/new" 6.1.0-b)
check "a new kernel at night 13: the change starts with it ($got)" \
	test "$got" = "$(printf 'k/20261113-020000-h1\tk/20261112-020000-h1')"
# The same over synthetic histories (fixed seeds: the same figures every
# time): a step of 3 sd, its first bad run named exactly. Before the split
# was refined at all (an INFINITY - INFINITY comparison kept the energy
# statistic's split), 84% with 2 runs a night and with a new kernel.
named() { "$MMCHANGE" simulate --steps 3 --seeds 300 "$@" | awk -F, '$1 == 3 { print $10 }'; }
got=$(named --runs 2)
check "2 runs a night: the first bad run named in at least 92% ($got%)" awk -v g="$got" 'BEGIN { exit !(g >= 92) }'
got=$(named --runs 1 --new-kernel)
check "1 run a night, a new kernel at the step: the first bad run named in at least 96% ($got%)" \
	awk -v g="$got" 'BEGIN { exit !(g >= 96) }'

# Bad input: exit 2 with a message, no sanitizer report.
for args in "edivisive --qhat 9" "edivisive --alpha 2" "edivisive --better sideways" \
	"simulate --cov -1" "detect" "nosuch"; do
	# shellcheck disable=SC2086
	printf '1\n2\n3\n' | "$MMCHANGE" $args >"$d/out" 2>"$d/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ -s "$d/err" ] && ! grep -q Sanitizer "$d/err"; then
		pass "mmchange $args: exit 2 with a message"
	else
		fail "mmchange $args" "exit $rc: $(head -3 "$d/err")"
	fi
done
printf '1\nx\n' | "$MMCHANGE" edivisive >"$d/out" 2>"$d/err"
check "a line that is not a number: exit 2 naming it" \
	test $? -eq 2 -a -n "$(grep 'line 2: not a number' "$d/err")"
# Numbers have one grammar (bench/results/numbers.h): decimal only, for
# the values on stdin and the options alike.
for v in +12 0x10 inf nan 12abc; do
	printf '%s\n' 10 "$v" 11 | "$MMCHANGE" edivisive >/dev/null 2>"$d/err"
	check "value '$v' on stdin: exit 2, line 2 named" \
		test $? -eq 2 -a -n "$(grep 'line 2: not a number' "$d/err")"
done
printf '%s\n' '1 10' '2 11' '3 10 4' | "$MMCHANGE" edivisive >/dev/null 2>"$d/err"
check "three fields on a line: exit 2, line 3 named" \
	test $? -eq 2 -a -n "$(grep 'line 3: not a number' "$d/err")"
for o in "--alpha +0.05" "--min-change 0x1" "--min-sd ' 2'"; do
	eval "printf '%s\\n' 1 2 3 | \"\$MMCHANGE\" edivisive $o" >/dev/null 2>"$d/err"
	check "edivisive $o: a usage error (exit 2)" test $? -eq 2 -a -s "$d/err"
done
"$MMCHANGE" simulate --steps '1,0x2' >/dev/null 2>"$d/err"
check "simulate --steps with a hex step: exit 2 naming --steps" \
	test $? -eq 2 -a -n "$(grep -- "--steps '1,0x2'" "$d/err")"
finish
