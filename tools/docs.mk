# Generated documentation: `make docs` rewrites workloads/PARAMETERS.md
# from `bench/mmbench info` (tools/gen-docs), bench/run-options.tsv
# from `bench/mmbench options` (the run options' table, which the shell
# front doors read before mmbench is built), and bench/OPTIONS.md, the
# run options' reference, from that file (tools/gen-docs --options). The
# files are committed; tests/core/test_docs.sh fails when they differ from
# what mmbench prints. Each is written to a temporary name first, so a
# failed run leaves the page alone.
.PHONY: docs
docs: bench/mmbench
	@tools/gen-docs --mmbench bench/mmbench >workloads/PARAMETERS.md.tmp || \
		{ rm -f workloads/PARAMETERS.md.tmp; exit 1; }
	@mv workloads/PARAMETERS.md.tmp workloads/PARAMETERS.md
	@echo "docs: workloads/PARAMETERS.md written"
	@bench/mmbench options >bench/run-options.tsv.tmp || \
		{ rm -f bench/run-options.tsv.tmp; exit 1; }
	@mv bench/run-options.tsv.tmp bench/run-options.tsv
	@echo "docs: bench/run-options.tsv written"
	@tools/gen-docs --options bench/run-options.tsv >bench/OPTIONS.md.tmp || \
		{ rm -f bench/OPTIONS.md.tmp; exit 1; }
	@mv bench/OPTIONS.md.tmp bench/OPTIONS.md
	@echo "docs: bench/OPTIONS.md written"

# The manual pages (tools/man/commands lists them), made from what each
# command's --help prints and from bench/SCHEMA.md and
# tools/nightly.example.conf (tools/man/gen-man) into tools/man/out/, not
# committed: make install makes them. Each is written to a temporary name
# first. The pages name the installed paths under PREFIX (tools/install.mk).
.PHONY: man
man: build-all
	@mkdir -p tools/man/out
	@set -e; for p in $$(awk -F'\t' '/^[a-z]/ && NF >= 4 { print $$1 }' tools/man/commands); do \
		tools/man/gen-man --version '$(MMBENCH_VERSION)' --prefix '$(PREFIX)' \
			--libexecdir '$(LIBEXECDIR)' --datadir '$(DATADIR)' --docdir '$(DOCDIR)' "$$p" >"tools/man/out/$$p.tmp" || \
			{ rm -f "tools/man/out/$$p.tmp"; exit 1; }; \
		mv "tools/man/out/$$p.tmp" "tools/man/out/$$p"; done
	@echo "man: tools/man/out/ written"
CLEAN_FILES += tools/man/out/*
