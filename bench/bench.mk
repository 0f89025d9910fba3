# The mmbench driver: the core in bench/ plus every workload in workloads/.
# The results library (the schema, CSV reading and writing, meta.csv) is
# part of the core and also linked by every tool that reads or writes
# result files: it uses only libc and libcsv.
MMRES_SRCS := bench/results.c bench/csvio.c
MMRES_OBJS := $(MMRES_SRCS:.c=.o)
MMRES_LIBS := -lcsv
# The result-set reader (mmcompare, mmplot, mmtrend): results.csv and the
# files next to it of many runs, read on threads. Not in mmbench.
MMRS_SRCS := $(wildcard bench/resultset*.c) bench/bigmem.c
MMRS_OBJS := $(MMRS_SRCS:.c=.o)
MMRS_LIBS := -lcsv -lm -pthread
MMBENCH_VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)
CORE_SRCS := $(filter-out bench/test_%.c $(MMRS_SRCS),$(wildcard bench/*.c bench/kernel/*.c))
WL_SRCS := $(wildcard workloads/*.c)
MMBENCH_OBJS := $(CORE_SRCS:.c=.o) $(WL_SRCS:.c=.o)
MMBENCH_LIBS := -lnuma -lhwloc -lcsv -lgsl -lgslcblas -lpthread -lm

# The version string changes with every commit: only sysinfo.o sees it.
bench/kernel/sysinfo.o: CFLAGS += -DMMBENCH_VERSION='"$(MMBENCH_VERSION)"'

# Headers by bare name: the core's, and the kernel room's (bench/kernel/).
bench/%.o workloads/%.o: CFLAGS += -Ibench -Ibench/kernel

%.o: %.c
	$(CC) $(CFLAGS) -c -o $@ $<

bench/mmbench: $(MMBENCH_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(MMBENCH_LIBS)

# The same program built with ASan+UBSan, used by the tests.
bench/mmbench-san: $(CORE_SRCS) $(WL_SRCS) $(wildcard bench/*.h bench/kernel/*.h)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(SAN_CFLAGS) -Ibench -Ibench/kernel -DMMBENCH_VERSION='"$(MMBENCH_VERSION)"' \
		-o $@ $(CORE_SRCS) $(WL_SRCS) $(MMBENCH_LIBS)

ALL_TARGETS += bench/mmbench
CHECK_DEPS += bench/mmbench-san
CLEAN_FILES += bench/mmbench bench/mmbench-san

-include $(MMBENCH_OBJS:.o=.d) $(MMRS_OBJS:.o=.d)
