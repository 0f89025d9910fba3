#!/usr/bin/env bash
# A kernel given by path with a tools/kbuild manifest beside it: the VM lab
# copies the manifest's rows into the run's meta.csv (issue 8).
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
kd=$("$TOP/tools/vm/fetch-kernel" bookworm 2>"$t/fetch.err") ||
	{ fail "manifest: fetch bookworm" "$(tail -3 "$t/fetch.err")"; finish; }
mkdir -p "$t/k"
cp "$kd/vmlinuz" "$t/k/bzImage"
sum=$(sha256sum <"$t/k/bzImage" | cut -d' ' -f1)
printf 'key,value\nkbuild_schema,1\nkbuild_side,patched\nkbuild_image_sha256,%s\nkbuild_patches,"a.patch:1;b.patch:2"\n' \
	"$sum" >"$t/k/manifest.csv"
echo "pageout -p size_mb=8 -p duration_s=0.2 -p instances=1 -i 1 -w 0" >"$t/suite"
# With its module tree: pageout needs ext4 on the RAM disk (a page cache).
"$TOP/run.sh" --vm "$t/k/bzImage" --vm-module-dir "$kd/lib/modules/$(cat "$kd/release")" \
	--suite "$t/suite" --out "$t/res" >"$t/out" 2>&1
rc=$?
meta=$(ls "$t"/res/*/*/meta.csv 2>/dev/null | head -1)
[ $rc -eq 0 ] && [ -n "$meta" ] && pass "manifest: path kernel ran" ||
	{ fail "manifest: run" "rc=$rc $(tail -5 "$t/out")"; finish; }
[ "$(meta_get "$meta" kbuild_side)" = patched ] &&
	[ "$(meta_get "$meta" kbuild_image_sha256)" = "$sum" ] &&
	grep -q '^kbuild_patches,"a.patch:1;b.patch:2"$' "$meta" &&
	pass "manifest: kbuild rows in meta.csv, unchanged" ||
	fail "manifest: meta.csv" "$(grep kbuild "$meta")"
[ "$(grep -c '^kbuild_schema,' "$meta")" = 1 ] && pass "manifest: copied once" ||
	fail "manifest: duplicates" ""
finish
