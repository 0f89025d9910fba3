#!/usr/bin/env bash
# One label rule: the front doors' check (tools/lib/front.sh front_label_ok,
# used by run.sh, the VM lab, kbuild-pair and the nightly's config) accepts
# exactly the labels `mmbench check-label` accepts, over labels at and
# around every edge of the rule.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tools/lib/front.sh"
[ -x "$MMBENCH" ] || { skip "label rule" "no $MMBENCH (make)"; exit 4; }
long100=$(printf 'a%.0s' $(seq 100))
labels=(a Z 9 6.1.0-57-amd64 base patched a_b a+b a-b a.b v1.2 "$long100" "${long100}a"
	'' . .. a..b _a -a +a .a a: 'a b' a/b 'a$b' 'a`b' "a'b" 'a"b' $'a\tb' $'a\nb'
	a, a= a% é 'a*' '../x' 'a..' '..a')
bad=0
for l in "${labels[@]}"; do
	"$MMBENCH" check-label "$l" >/dev/null 2>&1
	c=$?
	front_label_ok "$l"
	f=$?
	if ! { [ "$c" -eq 0 ] && [ "$f" -eq 0 ]; } && ! { [ "$c" -eq 2 ] && [ "$f" -ne 0 ]; }; then
		fail "label rule: '$(printf %q "$l")'" "mmbench check-label exit $c, front_label_ok $f"
		bad=$((bad + 1))
	fi
done
[ $bad = 0 ] && pass "label rule: front doors and mmbench agree on ${#labels[@]} labels"
finish
