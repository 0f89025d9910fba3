#!/usr/bin/env bash
# run.sh writes its build log to a new file of its own: a link another user
# planted at the old fixed name (/tmp/mmbench-build.log) is not followed,
# and the file it points to is left as it was.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir)
planted=/tmp/mmbench-build.log
cleanup() {
	[ -L "$planted" ] && [ "$(readlink "$planted")" = "$t/victim" ] && rm -f "$planted"
	rm -rf "$t"
}
trap cleanup EXIT
if [ -e "$planted" ] || [ -L "$planted" ]; then
	skip "planted build log" "$planted exists already; not touching it"
	finish
fi
echo "precious" >"$t/victim"
ln -s "$t/victim" "$planted"
echo 'pageout -p size_mb=8 -p duration_s=0.2 -i 1 -w 0' >"$t/suite"
TMPDIR=/tmp "$TOP/run.sh" --suite "$t/suite" --out "$t/res" >"$t/out" 2>&1
rc=$?
check "run.sh ran (exit $rc)" [ $rc -eq 0 ]
check "the planted link's target is untouched" [ "$(cat "$t/victim")" = precious ]
check "the planted link is still a link (not replaced by a file)" [ -L "$planted" ]
finish
