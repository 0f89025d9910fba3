#!/usr/bin/env bash
# The nightly on a LAVA device pool (lava = yes, lava_args): the config is
# checked like every other key, and the night runs its guest through
# tools/lava/lava instead of tools/vm/lab. No LAVA server is asked here
# (make check-lava runs real jobs): lava_args points at a closed port, so
# the night must fail with LAVA's reason in its summary and history.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
[ -x "$TOP/tools/lava/lava" ] || { skip "nightly lava" "no tools/lava/lava"; exit 4; }

conf() { write_conf "$d"; cat >>"$d/n.conf"; }

printf 'vm = bookworm\nlava = maybe\n' | conf
out=$("$NIGHTLY" --check "$d/n.conf" 2>&1); rc=$?
check "lava = maybe: exit 2 naming the key (rc=$rc)" eval '[ $rc = 2 ] && grep -q "lava = .maybe.: want yes or no" <<<"$out"'
printf 'lava = yes\n' | conf
out=$("$NIGHTLY" --check "$d/n.conf" 2>&1); rc=$?
check "lava = yes without vm: exit 2 (rc=$rc)" eval '[ $rc = 2 ] && grep -q "lava = yes needs vm = KERNEL" <<<"$out"'
printf 'vm = bookworm\nlava = yes\nlava_args = --uri http://u:t@127.0.0.1:9/RPC2; touch %s/CANARY\n' "$d" | conf
out=$("$NIGHTLY" --check "$d/n.conf" 2>&1); rc=$?
check "lava_args with a ';': exit 2 (rc=$rc)" eval '[ $rc = 2 ] && grep -q "lava_args" <<<"$out"'

# Port 9 (discard) is closed here: lavacli cannot reach a server.
printf 'vm = bookworm\nlava = yes\nlava_args = --uri http://u:t@127.0.0.1:9/RPC2\ntrends = no\n' | conf
(cd "$d" && "$NIGHTLY" n.conf) >"$d/out" 2>&1
rc=$?
check "a night whose LAVA server is unreachable fails (rc=$rc)" [ $rc = 1 ]
check "its summary names LAVA's reason" grep -q '^run: failed: .*lava: ' "$d/out"
row=$("$MMHISTORY" select "$d/res/history.csv" --fields status,reason | tail -n 1)
check "history: failed, with LAVA's reason ($(cut -c1-80 <<<"$row"))" grep -q '^failed	.*lava: ' <<<"$row"
check "nothing from the config ran" test ! -e "$d/CANARY"
finish
