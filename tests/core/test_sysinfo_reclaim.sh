#!/usr/bin/env bash
# meta.csv names what takes memory back while a run measures: free page
# reporting (its order) and DAMON's running schemes, as this machine's
# sysfs says them.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
"$MMBENCH" sysinfo -o "$t/meta.csv" >/dev/null 2>&1 || { fail "sysinfo" "exit $?"; finish; }
get() { "$MMBENCH" field --where key="$1" --last "$t/meta.csv" value; }
PR=/sys/module/page_reporting/parameters/page_reporting_order
if [ -r $PR ]; then want="order $(cat $PR)"; else want=none; fi
check "free_page_reporting: '$want' ($(get free_page_reporting))" [ "$(get free_page_reporting)" = "$want" ]
D=/sys/kernel/mm/damon/admin/kdamonds
got=$(get damon)
if [ ! -r $D/nr_kdamonds ]; then
	check "damon: none without DAMON sysfs ($got)" [ "$got" = "none (no DAMON sysfs)" ]
else
	on=0 acts=
	for k in $D/[0-9]*; do
		[ "$(cat "$k/state")" = on ] || continue
		on=1
		for a in "$k"/contexts/[0-9]*/schemes/[0-9]*/action; do
			[ -r "$a" ] && acts+=" $(cat "$a")("
		done
	done
	if [ $on = 0 ]; then
		check "damon: none with no kdamond running ($got)" [ "$got" = none ]
	else
		bad=
		for a in $acts; do [[ $got == *"$a"* ]] || bad+=" $a"; done
		check "damon: every running scheme's action is named ($got)" [ -z "$bad" ]
	fi
fi
finish
