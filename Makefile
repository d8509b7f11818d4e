# ksnoop build: vmlinux.h -> bpf/*.bpf.o -> bpftool gen skeleton -> link.
# make            build ./ksnoop
# make STATIC=1   static binary
# make test       every test (unit, host, VM matrix); see README
# make check      unit + host tests only (no VM)
# make vm         the main job (trace demo) inside the bundled VM
# make bench      benchmarks inside the VM
# make ASAN=1 OUT=build/asan BIN=build/asan/ksnoop
#                 sanitizer build beside the normal one

OUT      ?= build
BIN      ?= ksnoop
CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
HOST_BTF ?= /sys/kernel/btf/vmlinux
VERSION  := 0.1.0

ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

WARN     := -Wall -Wextra -Wformat=2 -Wtype-limits -Werror
CFLAGS   ?= -g -O2
CFLAGS   += $(WARN) -std=gnu11 -D_GNU_SOURCE -DKSNOOP_VERSION='"$(VERSION)"' \
	    -I$(OUT) -Isrc -Ibpf
LDLIBS   := -lbpf -lelf -lz
ifeq ($(STATIC),1)
LDFLAGS  += -static
endif
ifeq ($(ASAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=address,undefined
endif

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) $(WARN) \
	      -Wno-unused-function -Wno-unused-parameter -I$(OUT) -Ibpf

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
SKELS    := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))
SRCS     := $(wildcard src/*.c)
OBJS     := $(patsubst src/%.c,$(OUT)/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(OUT)/main.o,$(OBJS))
HDRS     := $(wildcard src/*.h bpf/*.h)

.SECONDARY:
.PHONY: all clean deps test check unit vm bench bench-bins format
all: $(BIN)

$(OUT):
	mkdir -p $@

# CO-RE relocates field offsets at load time, so the build machine's BTF
# serves every target kernel.
$(OUT)/vmlinux.h: | $(OUT)
	@test -r $(HOST_BTF) || { echo "Error: $(HOST_BTF) not readable; build on a kernel with CONFIG_DEBUG_INFO_BTF=y or pass HOST_BTF=FILE" >&2; exit 1; }
	$(BPFTOOL) btf dump file $(HOST_BTF) format c > $@.tmp && mv $@.tmp $@

$(OUT)/%.bpf.o: bpf/%.bpf.c bpf/ksnoop.h $(OUT)/vmlinux.h | $(OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(OUT)/%.o: src/%.c $(HDRS) $(SKELS) | $(OUT)
	$(CC) $(CFLAGS) -c $< -o $@

$(BIN): $(OBJS)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUT)/libksnoop.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

# Unit tests link the project's objects (minus main) into one cmocka binary
# per tests/unit/test_*.c.
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))

# WRAP_test_x: functions test_x replaces with __wrap_F (see ld --wrap).
WRAP_test_cli := cmd_info cmd_trace cmd_feature cmd_ktrace cmd_kdump

$(OUT)/tests/%: tests/unit/%.c tests/unit/*.h $(OUT)/libksnoop.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit $< $(OUT)/libksnoop.a $(LDFLAGS) \
		$(foreach f,$(WRAP_$*),-Wl,--wrap=$(f)) -lcmocka $(LDLIBS) -o $@

unit-bins: $(UNIT_BINS)

# Benchmark programs (tests/bench/): a static workload driver and the loader
# of the empty fentry/fexit floor. Kept out of src/, which is all ksnoop.
BENCH_BINS := $(OUT)/bench/bench $(OUT)/bench/floor

$(OUT)/bench/bench: tests/bench/bench.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static $< -o $@

$(OUT)/bench/floor: tests/bench/floor.c $(OUT)/bench_floor.skel.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

# The formatter alone, on synthetic events (no VM needed).
$(OUT)/bench/fmtbench: tests/bench/fmtbench.c $(OUT)/libksnoop.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(OUT)/libksnoop.a $(LDFLAGS) $(LDLIBS) -o $@

bench-bins: $(BENCH_BINS)

deps:
	./scripts/deps.sh

check: deps
	./tests/run.sh --no-vm

test: deps
	./tests/run.sh

vm: deps
	./tests/vm/demo.sh

bench: deps
	$(MAKE) $(BIN) bench-bins
	./tests/bench/run.sh

format:
	clang-format -i src/*.c src/*.h bpf/*.c bpf/*.h tests/unit/*.c

clean:
	rm -rf $(OUT) ksnoop
