#!/usr/bin/env bash
# One grammar of numbers: the front doors' shell checks (tools/lib/front.sh
# front_decimal_ok and front_integer_ok, used before mmbench is built, by
# --help and --dry-run) accept exactly what the C rule accepts (`mmbench
# check decimal|integer`, bench/results/numbers.c), over numbers at and
# around every edge of the grammar.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tools/lib/front.sh"
[ -x "$MMBENCH" ] || { skip "number rule" "no $MMBENCH (make)"; exit 4; }
nums=(0 1 -1 007 10 1.5 -1.5 .5 -.5 5. 1e3 1E3 1e+3 1e-3 .5e-1 5.e2 -0 00
	'' - + +1 ' 1' '1 ' 1e 1e+ e3 .e3 . -. 0x10 0x1p3 1_000 1,5 inf nan -inf
	1..2 1e3.5 '1 2' $'1\n' a 1a 999999999999999999 1000000000000000000
	-999999999999999999 9223372036854775807 99999999999999999999 é)
bad=0
for kind in decimal integer; do
	for v in "${nums[@]}"; do
		"$MMBENCH" check "$kind" "$v" >/dev/null 2>&1
		c=$?
		"front_${kind}_ok" "$v"
		f=$?
		if [ "$kind" = integer ] && [ "$c" = 0 ] && [ "$f" != 0 ] &&
			[[ $v =~ ^-?[0-9]{19}$ ]]; then
			continue	# 19 digits: C takes what fits 64 bits, shell stops at 18
		fi
		if ! { [ "$c" -eq 0 ] && [ "$f" -eq 0 ]; } && ! { [ "$c" -eq 2 ] && [ "$f" -ne 0 ]; }; then
			fail "number rule ($kind): '$(printf %q "$v")'" "mmbench check $kind exit $c, front_${kind}_ok $f"
			bad=$((bad + 1))
		fi
	done
done
[ $bad = 0 ] && pass "number rule: front doors and mmbench agree on ${#nums[@]} inputs, decimal and integer"
finish
