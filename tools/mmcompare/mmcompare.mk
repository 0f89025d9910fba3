# tools/mmcompare: mmcompare, mmplot and the CSV reader's fuzz harness
# (make bench-compare is in tools/selfbench/). Tests live in tests/compare/.

MMC := tools/mmcompare
# libcsv reads and quotes CSV; GSL gives the Student t distribution.
MMC_LIBS := -lcsv -lgsl -lgslcblas -lm -pthread
# The result-set reader and the CSV library are the results library's
# (bench/results/).
MMC_CORE := stats compare
MMC_OBJS := $(MMC_CORE:%=$(MMC)/%.o) $(MMRS_OBJS) $(MMRES_OBJS)
MMC_ASAN_OBJS := $(MMC_CORE:%=tests/compare/%.asan.o) \
	$(MMRS_SRCS:bench/results/%.c=tests/compare/%.asan.o) \
	$(MMRES_SRCS:bench/results/%.c=tests/compare/%.asan.o)

ALL_TARGETS += $(MMC)/mmcompare $(MMC)/mmplot $(MMC)/mdc
CHECK_DEPS += tests/compare/mmcompare.asan tests/compare/mmplot.asan \
	tests/compare/stats_unit.asan $(MMC)/fuzz_reader
CLEAN_FILES += $(MMC)/mmcompare $(MMC)/mmplot $(MMC)/mdc $(MMC)/fuzz_reader \
	$(MMC)/gen_synth $(MMC)/runstat tests/compare/*.asan

# the results library's headers are in bench/results/
$(MMC)/%.o: $(MMC)/%.c
	$(CC) $(CFLAGS) -Ibench/results -c -o $@ $<

$(MMC)/mmcompare $(MMC)/mmplot: $(MMC)/%: $(MMC)/%.o $(MMC_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(MMC_LIBS)
# the outputs are mmcompare's alone (mmcompare.h): its views, the verdict,
# and the kernel profiles beside it (profdiff, mmprofile's reader)
MMC_OUT := cmpfmt cmptext cmpprof cmpcsv cmpmd verdict profdiff
$(MMC)/mmcompare: $(MMC_OUT:%=$(MMC)/%.o)
tests/compare/mmcompare.asan: $(MMC_OUT:%=tests/compare/%.asan.o)
# mmplot's charts (mmplot.h)
MMC_PLOT := plotfile plotscale plotchange
$(MMC)/mmplot: $(MMC_PLOT:%=$(MMC)/%.o)
tests/compare/mmplot.asan: $(MMC_PLOT:%=tests/compare/%.asan.o)

# mdc: the MDC formula (bench/results/mdc.h) for scripts: tools/selfbench/lib.sh
# asks it
$(MMC)/mdc: $(MMC)/mdc.o $(MMRS_OBJS) $(MMRES_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(MMC_LIBS)

$(MMC)/gen_synth: $(MMC)/gen_synth.o $(MMRES_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(MMRES_LIBS)

$(MMC)/runstat: $(MMC)/runstat.o
	$(CC) $(CFLAGS) -o $@ $^

# The same programs built with ASan/UBSan: the tests feed them bad input.
tests/compare/%.asan.o: $(MMC)/%.c
	$(CC) $(CFLAGS) $(SAN_CFLAGS) -Ibench/results -c -o $@ $<

tests/compare/%.asan.o: bench/results/%.c
	$(CC) $(CFLAGS) $(SAN_CFLAGS) -Ibench/results -c -o $@ $<

tests/compare/%.asan.o: tests/compare/%.c
	$(CC) $(CFLAGS) $(SAN_CFLAGS) -I$(MMC) -Ibench/results -c -o $@ $<

tests/compare/mmcompare.asan tests/compare/mmplot.asan tests/compare/stats_unit.asan: \
tests/compare/%.asan: tests/compare/%.asan.o $(MMC_ASAN_OBJS)
	$(CC) $(CFLAGS) $(SAN_CFLAGS) -o $@ $^ $(MMC_LIBS)

# libFuzzer needs clang; -O1 keeps the inputs' paths through the parser
# visible to the coverage instrumentation.
FUZZ_CC ?= clang
$(MMC)/fuzz_reader: $(MMC)/reader_fuzz.c $(MMC_CORE:%=$(MMC)/%.c) $(MMC)/*.h $(MMRS_SRCS) \
		$(MMRES_SRCS) bench/results/*.h
	$(FUZZ_CC) -std=gnu11 -D_GNU_SOURCE -g -O1 -Ibench/results \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ $(filter %.c,$^) $(MMC_LIBS)

-include $(wildcard $(MMC)/*.d tests/compare/*.d)

# mdhtml: report.md -> report.html with the charts' SVG inline
# (tools/compare-report); the test builds it with ASan/UBSan too.
ALL_TARGETS += $(MMC)/mdhtml
CHECK_DEPS += tests/compare/mdhtml.asan
CLEAN_FILES += $(MMC)/mdhtml
$(MMC)/mdhtml: $(MMC)/mdhtml.o
	$(CC) $(CFLAGS) -o $@ $^
tests/compare/mdhtml.asan: tests/compare/mdhtml.asan.o
	$(CC) $(CFLAGS) $(SAN_CFLAGS) -o $@ $^
