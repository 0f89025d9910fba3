#!/usr/bin/env bash
# tools/lava without a server (part of `make check`): bad input is refused
# with a clear message before any server is asked; the job a real host gets
# (its own deploy and boot actions, then mmbench's test action, the suite
# and arguments intact); the in-job runner (tools/lava/guest-run, under
# busybox sh) on this host, its LAVA test cases and measurements, and the
# run directory's trip through the log, with broken and hostile transfers
# refused.
. "$(dirname "$0")/../lib.sh"
lava=$TOP/tools/lava/lava
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
export MMBENCH
# No server may be reached by these: an identity that cannot exist.
export MMBENCH_LAVA_STATE=$t/no-state

# usage NAME WANT_MSG ARGS...: exit 2 and the message on stderr
usage() {
	local name=$1 want=$2 rc
	shift 2
	"$lava" "$@" >"$t/o" 2>"$t/e"
	rc=$?
	if [ "$rc" = 2 ] && grep -q -- "$want" "$t/e"; then
		pass "usage: $name"
	else
		fail "usage: $name" "rc=$rc, stderr: $(head -c 300 "$t/e")"
	fi
}
echo "pageout -p size_mb=8 -p duration_s=0.2 -p instances=1 -i 2 -w 0" >"$t/suite"
usage "no subcommand" "usage: tools/lava/lava"
usage "no kernel" "no kernel" run --suite "$t/suite"
usage "unknown kernel" "not a file and not a Debian release" run --kernel nosuch --suite "$t/suite"
usage "quote in --append" "only letters, digits" job --kernel bookworm --append 'a"b' --suite "$t/suite"
usage "label with .." "use letters" run --kernel bookworm --label ../x --suite "$t/suite"
usage "label per kernel" "one per kernel" run --pair bookworm,trixie --label a --suite "$t/suite"
usage "no such suite" "no such file" run --kernel bookworm --suite "$t/nosuch"
usage "suite name with a path" "no such file" run --kernel bookworm --suite ../suites/quick
usage "job id" "not a LAVA job id" fetch abc
usage "two ids to fetch" "one job id" fetch 1 2
usage "nodes 0" "not a positive integer" run --kernel bookworm --nodes 0 --suite "$t/suite"
usage "cpus < nodes" "one CPU per node" run --kernel bookworm --nodes 2 --cpus 1 --suite "$t/suite"
usage "tags" "not a tag name" run --kernel bookworm --tags 'a;b' --suite "$t/suite"
usage "bundle url" "not an http" run --host-actions /dev/null --bundle-url 'http://x/$(id)' --suite "$t/suite"
usage "unknown option" "unknown option" run --frobnicate
printf -- '- deploy:\n    to: tftp\n- boot:\n    method: grub\n- test:\n    definitions: []\n' >"$t/with-test.yaml"
usage "host actions with a test" "no test action" job --host-actions "$t/with-test.yaml" --suite "$t/suite"
usage "host actions not a list" "expected a YAML list" job --host-actions "$t/suite" --suite "$t/suite"
usage "profile in a QEMU job" "guest has no perf" job --kernel bookworm --profile --suite "$t/suite"
usage "profile option in a QEMU job" "profile-cap: a QEMU device's guest has no perf" \
	run --kernel bookworm --profile-cap 8M --suite "$t/suite"
usage "max-iterations without precision" "limits --precision P" run --kernel bookworm --max-iterations 9 --suite "$t/suite"
usage "bad precision" "not a percentage" run --kernel bookworm --precision 0 --suite "$t/suite"

# ---- every run option the front doors pass on (bench/run-options.tsv,
# front = yes) is in --help, from the table
"$lava" --help >"$t/help" 2>&1
missing=$(awk -F'\t' 'NR > 1 && $9 == "yes" { print "--" $1 }' "$TOP/bench/run-options.tsv" |
	while read -r o; do grep -q -- "^  ${o}[ =[]" "$t/help" || echo "$o"; done)
[ -z "$missing" ] && grep -q -- '^  --precision P ' "$t/help" &&
	pass "help: every front door's run option of the table is listed" ||
	fail "help: run options" "missing: $missing"

# ---- a real host's job: its deploy and boot, then mmbench's test action
cat >"$t/host.yaml" <<'EOF'
- deploy:
    to: tftp
    kernel:
      url: http://files.example/bzImage
      type: bzimage
    nfsrootfs:
      url: http://files.example/rootfs.tar.xz
      compression: xz
    os: debian
- boot:
    method: grub
    commands: nfs
    prompts: ['root@host:~# ']
EOF
if "$lava" job --host-actions "$t/host.yaml" --device-type x86-host --tags big,numa \
	--label host-base --suite "$t/suite" --iterations 4 --bundle-url http://files.example/mmbench.tgz \
	-o "$t/job.yaml" 2>"$t/e"; then
	grep -q '^device_type: x86-host$' "$t/job.yaml" && grep -q '^- big$' "$t/job.yaml" &&
		grep -q 'method: grub' "$t/job.yaml" && grep -q '^- test:' "$t/job.yaml" &&
		grep -q "MMBENCH_BUNDLE_URL=http://files.example/mmbench.tgz sh /tmp/mmlava-run.sh" "$t/job.yaml" &&
		pass "host job: the host's deploy and boot, tags, then mmbench's test action" ||
		fail "host job: content" "$(head -c 600 "$t/job.yaml")"
	b64s=$(sed -n "s/^ *- 'echo \([A-Za-z0-9+\/=]*\) | base64 -d >\/tmp\/mmlava-suite'$/\1/p" "$t/job.yaml")
	b64a=$(sed -n "s/^ *- 'echo \([A-Za-z0-9+\/=]*\) | base64 -d >\/tmp\/mmlava-args'$/\1/p" "$t/job.yaml")
	b64r=$(sed -n "s/^ *- 'echo \([A-Za-z0-9+\/=]*\) | base64 -d >\/tmp\/mmlava-run.sh'$/\1/p" "$t/job.yaml")
	[ "$(base64 -d <<<"$b64s")" = "$(cat "$t/suite")" ] &&
		[ "$(base64 -d <<<"$b64a" | tr '\n' ' ')" = "--label host-base -i 4 " ] &&
		[ "$(base64 -d <<<"$b64r" | sha1sum)" = "$(sha1sum <"$TOP/tools/lava/guest-run")" ] &&
		pass "host job: suite, arguments and runner travel intact (base64)" ||
		fail "host job: payloads" "suite '$(base64 -d <<<"$b64s")' args '$(base64 -d <<<"$b64a" | tr '\n' ' ')'"
	if /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
		/usr/bin/python3 -c 'import sys, yaml; j = yaml.safe_load(open(sys.argv[1])); assert [list(a)[0] for a in j["actions"]] == ["deploy", "boot", "test"]' \
			"$t/job.yaml" 2>"$t/e" && pass "host job: valid YAML, actions deploy, boot, test" ||
			fail "host job: YAML" "$(tail -n 2 "$t/e")"
	fi
else
	fail "host job" "$(tail -n 5 "$t/e")"
fi
# Every mmbench option a front door passes on reaches the job's arguments.
if "$lava" job --host-actions "$t/host.yaml" --suite "$t/suite" --precision 5 --max-iterations 20 \
	--max-time=60 --profile=callgraph --profile-freq 99 --profile-cap 8M --iterations 3 \
	--warmups 0 --timeout 100 --probe do_swap_page -o "$t/job2.yaml" 2>"$t/e"; then
	b64a=$(sed -n "s/^ *- 'echo \([A-Za-z0-9+\/=]*\) | base64 -d >\/tmp\/mmlava-args'$/\1/p" "$t/job2.yaml")
	want="--precision 5 --max-iterations 20 --max-time 60 --profile=callgraph --profile-freq 99 --profile-cap 8M -i 3 -w 0 --timeout 100 --probe do_swap_page "
	[ "$(base64 -d <<<"$b64a" | tr '\n' ' ')" = "$want" ] &&
		pass "host job: --precision, --profile and the other run options travel to mmbench" ||
		fail "host job: run options" "args '$(base64 -d <<<"$b64a" | tr '\n' ' ')'"
else
	fail "host job with run options" "$(tail -n 5 "$t/e")"
fi

# ---- the in-job runner on this host, as LAVA's test shell runs it
bb=$(command -v busybox) || bb=
sh=${bb:+$bb sh}
sh=${sh:-sh}
printf '%s\n' --label lt >"$t/args"
if MMBENCH_BIN=$MMBENCH $sh "$TOP/tools/lava/guest-run" "$t/suite" "$t/args" "$t/g" >"$t/console" 2>&1; then
	pass "guest-run: ran under ${bb:+busybox }sh"
else
	fail "guest-run" "$(tail -n 5 "$t/console")"
fi
grep -q '^mmlava: lava-test-case 01\.pageout\.backing_file_dir__duration_s_0\.2_instances_1_size_mb_8 --result pass$' "$t/console" &&
	grep -q '^mmlava: lava-test-case 01\.pageout\.pages_out_per_s --result pass --measurement [0-9.e+]* --units pages/s$' "$t/console" &&
	grep -q '^mmlava: lava-test-case mmbench --result pass$' "$t/console" &&
	grep -q '^@@MMLAVA exit 0$' "$t/console" &&
	pass "guest-run: the case as a test case, evidence metrics as measurements" ||
	fail "guest-run: reports" "$(grep -v '^@@MMLAVA [0-9]' "$t/console" | tail -n 8)"
! grep 'lava-test-case' "$t/console" | grep -q 'loops_per_s_per_instance' &&
	pass "guest-run: context metrics are not measurements" || fail "guest-run: context metric reported"

# A real host without mmbench: the runner fetches the bundle and runs it.
if "$lava" bundle -o "$t/bundle.tgz" 2>"$t/e" && command -v curl >/dev/null &&
	! command -v mmbench >/dev/null && [ ! -e /usr/bin/mmbench ]; then
	env -u MMBENCH_BIN MMBENCH_BUNDLE_URL="file://$t/bundle.tgz" $sh "$TOP/tools/lava/guest-run" \
		"$t/suite" "$t/args" "$t/gb" >"$t/cb" 2>&1
	grep -q '^@@MMLAVA exit 0$' "$t/cb" && [ -s "$t/gb/run/results.csv" ] &&
		pass "bundle: a host without mmbench runs the suite from --bundle-url" ||
		fail "bundle" "$(grep -v '^@@MMLAVA [0-9]' "$t/cb" | tail -n 5)"
else
	skip "bundle" "no curl, or an mmbench on PATH or in /usr/bin would be used instead"
fi

# The trip home (tools/lava/fetch.sh's unpack_payload on the log's lines).
vm_prog=test wd=$t root=$t/root
. "$TOP/tools/lava/lib.sh"
. "$TOP/tools/lava/fetch.sh"
try() {	# try NAME CONSOLE: unpack into a fresh directory; why in $why
	rm -rf "$t/u"; mkdir -p "$t/u"
	why=$(unpack_payload "$2" "$t/u")
}
if try ok "$t/console"; then
	(cd "$t/g/run" && find . -type f | sort | xargs sha1sum) >"$t/a"
	(cd "$t/u/x/run" && find . -type f | sort | xargs sha1sum) >"$t/b"
	cmp -s "$t/a" "$t/b" && pass "transfer: the run directory comes back byte for byte ($(wc -l <"$t/a") files)" ||
		fail "transfer: content" "$(diff "$t/a" "$t/b" | head -n 5)"
else
	fail "transfer" "$why"
fi
# one line lost, one line altered, no transfer at all
awk '!($1 == "@@MMLAVA" && $2 == "3")' "$t/console" >"$t/c1"
try lost "$t/c1" || [[ $why != *incomplete* ]] || pass "transfer: a lost line is refused ($why)"
[[ $why == *incomplete* ]] || fail "transfer: lost line" "$why"
awk '$1 == "@@MMLAVA" && $2 == "2" { $3 = "AAAA" $3 } { print }' "$t/console" >"$t/c2"
try altered "$t/c2" || [[ $why != *checksum* && $why != *base64* ]] ||
	pass "transfer: an altered line is refused ($why)"
[[ $why == *checksum* || $why == *base64* ]] || fail "transfer: altered line" "$why"
grep -v '^@@MMLAVA' "$t/console" >"$t/c3"
try none "$t/c3" || [[ $why != *"no run directory"* ]] || pass "transfer: none in the log ($why)"
[[ $why == *"no run directory"* ]] || fail "transfer: none" "$why"
# hostile archives with a right checksum: a link, a path outside run/
craft() {	# craft OUT TAR_ARGS...: a console holding that archive
	local out=$1 sum n
	shift
	tar -czf "$t/h.tgz" "$@" 2>/dev/null
	base64 "$t/h.tgz" >"$t/h.b64"
	sum=$(sha256sum "$t/h.tgz" | cut -d' ' -f1)
	n=$(wc -l <"$t/h.b64")
	{ echo "@@MMLAVA begin $n $sum"; awk '{ print "@@MMLAVA " NR " " $0 }' "$t/h.b64"; echo "@@MMLAVA end"; } >"$out"
}
mkdir -p "$t/evil/run" && ln -s /etc/passwd "$t/evil/run/meta.csv"
craft "$t/c4" -C "$t/evil" run
try link "$t/c4" || [[ $why != *"not a plain file"* ]] || pass "transfer: an archive with a symlink is refused"
[[ $why == *"not a plain file"* ]] || fail "transfer: symlink" "$why"
[ ! -e "$t/u/x" ] || fail "transfer: symlink archive was unpacked" "$(ls -la "$t/u/x")"
rm -rf "$t/evil"; mkdir -p "$t/evil/run" && echo x >"$t/evil/other"
craft "$t/c5" -C "$t/evil" run ./other
try outside "$t/c5" || [[ $why != *"not a plain file"* ]] || pass "transfer: a file outside run/ is refused"
[[ $why == *"not a plain file"* ]] || fail "transfer: outside" "$why"
finish
