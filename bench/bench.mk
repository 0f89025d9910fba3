# The mmbench driver: the core in bench/ plus every workload in workloads/.
# The results library (bench/results/: the schema, CSV reading and writing,
# meta.csv, the rules of numbers, names and directions) is linked by the
# driver and by every tool that reads or writes result files: it uses only
# libc and libcsv.
MMRES_SRCS := bench/results/results.c bench/results/csvio.c bench/results/numbers.c \
	bench/results/resrow.c bench/results/casekeys.c \
	bench/results/label.c
MMRES_OBJS := $(MMRES_SRCS:.c=.o)
MMRES_LIBS := -lcsv
# The result-set reader (mmcompare, mmplot, mmtrend, mmchange): results.csv
# and the files next to it of many runs, read on threads. Not in mmbench.
MMRS_SRCS := $(wildcard bench/results/resultset*.c) bench/results/bigmem.c
MMRS_OBJS := $(MMRS_SRCS:.c=.o)
MMRS_LIBS := -lcsv -lm -pthread
MMBENCH_VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)
CORE_SRCS := $(filter-out bench/test_%.c,$(wildcard bench/*.c bench/cmd/*.c bench/kernel/*.c)) $(MMRES_SRCS)
WL_SRCS := $(wildcard workloads/*.c)
MMBENCH_OBJS := $(CORE_SRCS:.c=.o) $(WL_SRCS:.c=.o)
MMBENCH_LIBS := -lnuma -lhwloc -lcsv -lgsl -lgslcblas -lpthread -lm

# The version string changes with every commit: only sysinfo.o sees it,
# and is rebuilt when it changed (meta.csv's mmbench_version after a pull
# and make): the stamp is rewritten only when the string differs.
VERSION_STAMP := bench/kernel/version.stamp
$(shell v='$(MMBENCH_VERSION)'; [ "$$(cat $(VERSION_STAMP) 2>/dev/null)" = "$$v" ] || echo "$$v" >$(VERSION_STAMP))
bench/kernel/sysinfo.o: CFLAGS += -DMMBENCH_VERSION='"$(MMBENCH_VERSION)"'
bench/kernel/sysinfo.o: $(VERSION_STAMP)
CLEAN_FILES += $(VERSION_STAMP)

# Headers by bare name: the core's, the results library's (bench/results/)
# and the kernel room's (bench/kernel/).
bench/%.o workloads/%.o: CFLAGS += -Ibench -Ibench/results -Ibench/kernel

%.o: %.c
	$(CC) $(CFLAGS) -c -o $@ $<

bench/mmbench: $(MMBENCH_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(MMBENCH_LIBS)

# The same program built with ASan+UBSan, used by the tests.
bench/mmbench-san: $(CORE_SRCS) $(WL_SRCS) $(VERSION_STAMP) $(wildcard bench/*.h bench/results/*.h bench/kernel/*.h bench/cmd/*.h)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(SAN_CFLAGS) -Ibench -Ibench/results -Ibench/kernel -DMMBENCH_VERSION='"$(MMBENCH_VERSION)"' \
		-o $@ $(CORE_SRCS) $(WL_SRCS) $(MMBENCH_LIBS)

ALL_TARGETS += bench/mmbench
CHECK_DEPS += bench/mmbench-san
CLEAN_FILES += bench/mmbench bench/mmbench-san

-include $(MMBENCH_OBJS:.o=.d) $(MMRS_OBJS:.o=.d)
