# ksnoop build: vmlinux.h -> bpf/*.bpf.o -> bpftool gen skeleton -> link.
# make            build ./ksnoop
# make STATIC=1   static binary
# make test       every test (unit, host, VM matrix); see README
# make check      unit + host tests only (no VM)
# make vm         the main job (trace demo) inside the bundled VM
# make bench      benchmarks inside the VM
# make ASAN=1 OUT=build/asan BIN=build/asan/ksnoop
#                 sanitizer build beside the normal one
# make ARCH=arm64 cross-build a static arm64 build/arm64/ksnoop (and its
#                 test workload); scripts/arm64.sh deps installs the cross
#                 toolchain
# make vmlinux    regenerate the committed bpf/$(ARCH)/vmlinux.h
# make VMLINUX_H= build against this host's BTF (HOST_BTF) instead

HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH      ?= $(HOST_ARCH)

# A cross build lives in its own OUT and links statically (its VM has no libc).
ifneq ($(ARCH),$(HOST_ARCH))
CROSS_COMPILE ?= $(if $(filter arm64,$(ARCH)),aarch64-linux-gnu-)
CC        := $(CROSS_COMPILE)gcc
AR        := $(CROSS_COMPILE)ar
OUT       ?= build/$(ARCH)
BIN       ?= $(OUT)/ksnoop
STATIC    := 1
endif

# Every build takes the committed vmlinux.h of its architecture (as retsnoop
# and libbpf-bootstrap do): a build host without BTF, or of the other
# architecture, builds the same BPF objects.
VMLINUX_H ?= bpf/$(ARCH)/vmlinux.h

OUT      ?= build
BIN      ?= ksnoop
CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
HOST_BTF ?= /sys/kernel/btf/vmlinux
# The one version: ksnoop -V, the man pages and debian/changelog carry it
# (tests/host/version.sh checks that they agree).
VERSION  := $(shell cat VERSION)

WARN     := -Wall -Wextra -Wformat=2 -Wtype-limits -Werror
CFLAGS   ?= -g -O2
CFLAGS   += $(WARN) -std=gnu11 -D_GNU_SOURCE -DKSNOOP_VERSION='"$(VERSION)"' \
	    -I$(OUT) -Isrc -Ibpf
# A cross build reads the target architecture's .pc files.
ifneq ($(ARCH),$(HOST_ARCH))
PKG_CONFIG ?= PKG_CONFIG_LIBDIR=/usr/lib/$(patsubst %-,%,$(CROSS_COMPILE))/pkgconfig pkg-config
else
PKG_CONFIG ?= pkg-config
endif
# Asked of pkg-config once, when a link first needs them, not when make
# starts: `make vm` and `make deps` install the packages with the .pc files
# first. Without them, the plain names: the linker then says which is missing.
pkg_libs = $(or $(shell $(PKG_CONFIG) $(1) 2>/dev/null),$(2))
# libdw reads user functions' DWARF (src/lib/udwarf.c); statically, with
# the compression libraries its .pc file lists.
ifeq ($(STATIC),1)
LDFLAGS  += -static
LDLIBS    = $(eval LDLIBS := $(call pkg_libs,--static --libs libbpf libdw,-lbpf -ldw -lelf -lz -llzma -lbz2))$(LDLIBS)
else
LDLIBS    = $(eval LDLIBS := $(call pkg_libs,--libs libbpf libdw libelf zlib,-lbpf -ldw -lelf -lz))$(LDLIBS)
endif
# --prometheus's HTTP server (src/agg/prom_server.c) needs libmicrohttpd,
# which a static build cannot link (Debian's needs GnuTLS, and p11-kit has
# no static library): HAVE_MHD=1 where pkg-config finds it, unless static.
ifeq ($(STATIC),1)
HAVE_MHD ?= 0
else
HAVE_MHD ?= $(shell $(PKG_CONFIG) --exists libmicrohttpd && echo 1 || echo 0)
endif
# It is opened (dlopen) for --prometheus only, not linked: see prom_server.c.
ifeq ($(HAVE_MHD),1)
MHD_SONAME ?= $(shell readelf -d $$($(PKG_CONFIG) --variable=libdir libmicrohttpd)/libmicrohttpd.so \
		2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
CFLAGS   += -DHAVE_MHD $(if $(MHD_SONAME),-DMHD_SONAME='"$(MHD_SONAME)"')
endif
ifeq ($(ASAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=address,undefined
endif

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) $(WARN) \
	      -Wno-unused-function -Wno-unused-parameter -I$(OUT) -Ibpf

# Quiet by default, the commands themselves with V=1.
ifeq ($(V),1)
Q   :=
msg :=
else
Q   := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# One folder per family (src/lib, src/trace, src/agg, src/kpe, src/ktr) plus main
# and cli; objects mirror the tree under $(OUT)/obj.
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
SKELS    := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))
SRCS     := $(wildcard src/*.c src/*/*.c)
OBJS     := $(patsubst src/%.c,$(OUT)/obj/%.o,$(SRCS)) $(OUT)/obj/ktr_systab.o
LIB_OBJS := $(filter-out $(OUT)/obj/main.o,$(OBJS))

.SECONDARY:
.DELETE_ON_ERROR:
.PHONY: all vmlinux clean deps deps-build deps-test deps-bench test check unit vm bench bench-bins format print-format-srcs workload
all: $(BIN)

$(OUT):
	$(Q)mkdir -p $@

# CO-RE relocates field offsets at load time, so one header serves every
# target kernel of its architecture.
ifneq ($(VMLINUX_H),)
$(OUT)/vmlinux.h: $(VMLINUX_H) | $(OUT)
	$(Q)cp $< $@
else
$(OUT)/vmlinux.h: | $(OUT)
	@test -r $(HOST_BTF) || { echo "Error: $(HOST_BTF) not readable; build on a kernel with CONFIG_DEBUG_INFO_BTF=y or pass HOST_BTF=FILE" >&2; exit 1; }
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(HOST_BTF) format c > $@
endif

# A skeleton embeds its object in the binary, so the object goes in without
# clang's DWARF (1.4 of trace's 2 MB): bpftool's linker keeps the BTF and
# the symbols.
define compile_bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MT $@ -MF $(@:.o=.d) -c $< -o $(@:.o=.dbg.o)
	$(Q)$(BPFTOOL) gen object $@ $(@:.o=.dbg.o)
endef

$(OUT)/%.bpf.o: bpf/%.bpf.c $(OUT)/vmlinux.h | $(OUT)
	$(compile_bpf)

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# Every object waits for the skeletons (order only): -MMD records which
# ones it really includes once it has been built.
$(OUT)/obj/%.o: src/%.c | $(SKELS)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# -V prints VERSION.
$(OUT)/obj/cli.o: VERSION

$(BIN): $(OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUT)/libksnoop.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# Unit tests link the project's objects (minus main) into one cmocka binary
# per tests/unit/test_*.c.
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))

# WRAP_test_x: functions test_x replaces with __wrap_F (see ld --wrap).
WRAP_test_cli := cmd_info cmd_trace cmd_graph cmd_count cmd_hist cmd_feature cmd_ktrace cmd_kdump \
	cmd_probe cmd_kprobe_events
WRAP_test_agg_run := session__open session__plan agg_layout_plans session__prepare session__attach \
	session__report_open_spans session__close tracer__detach agg_reader__new agg_reader__prime \
	agg_reader__free agg_reader__wait agg_reader__note_pending agg_read agg_tables_free \
	agg_read_drops

$(OUT)/tests/%: tests/unit/%.c $(OUT)/libksnoop.a
	@mkdir -p $(dir $@) $(OUT)/deps/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -MF $(OUT)/deps/tests/$*.d -Itests/unit $< $(OUT)/libksnoop.a $(LDFLAGS) \
		$(foreach f,$(WRAP_$*),-Wl,--wrap=$(f)) -lcmocka $(LDLIBS) -o $@

unit-bins: $(UNIT_BINS)

# Benchmark programs (tests/bench/): a static workload driver and the loader
# of the empty fentry/fexit floor, built from tests/bench/floor.bpf.c.
# Kept out of src/ and bpf/, which are all ksnoop.
BENCH_BINS := $(OUT)/bench/bench $(OUT)/bench/floor

$(OUT)/bench/bench: tests/bench/bench.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -o $@

$(OUT)/bench/floor.bpf.o: tests/bench/floor.bpf.c $(OUT)/vmlinux.h
	@mkdir -p $(dir $@)
	$(compile_bpf)

$(OUT)/bench/floor: tests/bench/floor.c $(OUT)/bench/floor.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

# The formatter alone, on synthetic events (no VM needed).
$(OUT)/bench/fmtbench: tests/bench/fmtbench.c $(OUT)/libksnoop.a
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(OUT)/libksnoop.a $(LDFLAGS) $(LDLIBS) -o $@

bench-bins: $(BENCH_BINS)

# The VM tests' trigger program: static, so it runs in any guest; never
# sanitized (ASan cannot link statically); with frame pointers, which
# --ustack and --by ustack walk.
$(OUT)/tests/workload: tests/vm/workload.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O2 -fno-omit-frame-pointer $(WARN) -std=gnu11 -D_GNU_SOURCE -DWORKLOAD_STATIC \
		-static $< -o $@

# The same, linked dynamically: user-function tests find libc's malloc in
# it (x86-64 guests see the host's root, and its libc, over 9p).
$(OUT)/tests/workload-dyn: tests/vm/workload.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O2 -fno-omit-frame-pointer $(WARN) -std=gnu11 -D_GNU_SOURCE $< -o $@

# The same, static, without frame pointers in its own code (Debian's
# libc.a has none either): --call-graph dwarf unwinds it by CFI, and its
# stacks are compared with gdb's.
$(OUT)/tests/workload-nofp: tests/vm/workload.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O2 -fomit-frame-pointer $(WARN) -std=gnu11 -D_GNU_SOURCE -DWORKLOAD_STATIC \
		-static $< -o $@

workload: $(OUT)/tests/workload $(OUT)/tests/workload-dyn $(OUT)/tests/workload-nofp

# Packages per purpose (scripts/deps.sh): plain make installs nothing.
deps: deps-test
deps-build deps-test deps-bench:
	./scripts/deps.sh $(@:deps-%=%)

check: deps-test
	./tests/run.sh --no-vm

test: deps-test
	./tests/run.sh

# make vm ARGS='trace ip_send_skb' [KERNEL=6.12] [DURATION=10]: ARGS goes
# through the environment, so no shell ever parses a spec's '(' or '>'.
vm: export KSNOOP_ARGS = $(ARGS)
vm: deps-build
	$(MAKE) -s all workload
	./tests/vm/demo.sh

bench: deps-bench
	$(MAKE) all workload bench-bins
	./tests/bench/run.sh

vmlinux:
	scripts/vmlinux-h.sh $(ARCH)

format:
	clang-format -i $(FORMAT_SRCS)

clean:
	rm -rf $(OUT) $(BIN) ktrace kdump

# ---- ktrace/kdump (issue 6) ----
# Syscall, errno and signal names are generated from the system headers
# and the committed prototype snapshot (make ktr-protos refreshes it from
# tracefs). build/ktr_systab.c is linked like any src/ file.
KTR_PROTOS := scripts/ktr-syscall-protos.txt
KTR_SYSTAB := $(OUT)/obj/ktr_systab.o

$(OUT)/ktr_systab.c: scripts/gen-ktr-systab.sh $(KTR_PROTOS) | $(OUT)
	$(call msg,GEN,$@)
	$(Q)./scripts/gen-ktr-systab.sh $(ARCH) $(KTR_PROTOS) > $@

$(KTR_SYSTAB): $(OUT)/ktr_systab.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@


.PHONY: ktr-protos ktrace-links ktrace-target ringbuf-driver fuzz-kdump
ktr-protos:
	./scripts/gen-ktr-protos.sh > $(KTR_PROTOS).tmp && mv $(KTR_PROTOS).tmp $(KTR_PROTOS)

# The same binary answers to ktrace and kdump by name.
ktrace-links: $(BIN)
	ln -sf ksnoop ktrace
	ln -sf ksnoop kdump

# make install [PREFIX=/usr/local] [DESTDIR=]: ksnoop is a root tool
# (section 8) in sbin; ktrace and kdump are links to it in bin, since it
# dispatches on its name. uninstall removes exactly these files.
PREFIX  ?= /usr/local
DESTDIR ?=
INST_SBIN := $(DESTDIR)$(PREFIX)/sbin
INST_BIN  := $(DESTDIR)$(PREFIX)/bin
INST_MAN  := $(DESTDIR)$(PREFIX)/share/man
INST_COMP := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
MAN1      := $(wildcard doc/*.1)
MAN5      := $(wildcard doc/*.5)
MAN8      := $(wildcard doc/*.8)
COMPLETION := $(wildcard completion/ksnoop)
.PHONY: install uninstall deb
install: $(BIN)
	install -d $(INST_SBIN) $(INST_BIN) $(INST_MAN)/man1 $(INST_MAN)/man5 $(INST_MAN)/man8
	install -m 0755 $(BIN) $(INST_SBIN)/ksnoop
	ln -sf ../sbin/ksnoop $(INST_BIN)/ktrace
	ln -sf ../sbin/ksnoop $(INST_BIN)/kdump
	install -m 0644 $(MAN1) $(INST_MAN)/man1/
	install -m 0644 $(MAN5) $(INST_MAN)/man5/
	install -m 0644 $(MAN8) $(INST_MAN)/man8/
ifneq ($(COMPLETION),)
	install -d $(INST_COMP)
	install -m 0644 $(COMPLETION) $(INST_COMP)/ksnoop
endif

# make deb: build/ksnoop_VERSION_ARCH.deb with dpkg-buildpackage and
# debian/ (which builds in build/deb); remade only when an input changed.
DEB_ARCH = $(shell dpkg-architecture -qDEB_HOST_ARCH)
DEB      = build/ksnoop_$(VERSION)_$(DEB_ARCH)
DEB_IN   := $(SRCS) $(wildcard src/*.h src/*/*.h bpf/*.c bpf/*/*.h scripts/*.sh scripts/*.txt \
	    debian/control debian/rules debian/changelog debian/copyright debian/source/* debian/*.lintian-overrides \
	    debian/ksnoop.service debian/ksnoop.install debian/serve.conf \
	    doc/*.[158] completion/*) VERSION Makefile
deb: $(DEB).deb
$(DEB).deb: $(DEB_IN)
	dpkg-buildpackage -b -us -uc -j2 --post-clean --buildinfo-option=-ubuild --changes-option=-ubuild \
		--buildinfo-file=$(DEB).buildinfo --changes-file=$(DEB).changes

uninstall:
	rm -f $(INST_SBIN)/ksnoop $(INST_BIN)/ktrace $(INST_BIN)/kdump \
		$(addprefix $(INST_MAN)/man1/,$(notdir $(MAN1))) \
		$(addprefix $(INST_MAN)/man5/,$(notdir $(MAN5))) \
		$(addprefix $(INST_MAN)/man8/,$(notdir $(MAN8))) \
		$(INST_COMP)/ksnoop

# The host test's traced program; static in a cross build, for the arm64
# VM's ktrace case.
ktrace-target: $(OUT)/ktrace_target
$(OUT)/ktrace_target: tests/host/ktrace_target.c | $(OUT)
	$(CC) -g -O1 $(WARN) -std=gnu11 -D_GNU_SOURCE $(if $(filter 1,$(STATIC)),-static) $< -o $@

# The host test's driver of the ring reader against a real BPF ring buffer.
ringbuf-driver: $(OUT)/ringbuf_driver
$(OUT)/ringbuf_driver: tests/host/ringbuf_driver.c $(OUT)/libksnoop.a
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(OUT)/libksnoop.a $(LDFLAGS) -lpthread $(LDLIBS) -o $@

# libFuzzer build of the trace file reader and printer (clang, ASan+UBSan).
FUZZ_CC     ?= clang
FUZZ_FLAGS  := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	       -std=gnu11 -D_GNU_SOURCE -I$(OUT) -Isrc -Ibpf
FUZZ_SRCS   := tests/fuzz/kdump_fuzz.c src/ktr/file.c src/ktr/print.c src/ktr/args.c \
	       src/ktr/syscalls.c src/lib/errnames.c src/lib/util.c $(OUT)/ktr_systab.c \
	       src/ktr/print_chrome.c src/lib/chrome.c src/lib/json_writer.c
fuzz-kdump: $(OUT)/fuzz/kdump_fuzz
$(OUT)/fuzz/kdump_fuzz: $(FUZZ_SRCS) $(wildcard src/*/*.h bpf/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_SRCS) $(LDLIBS) -o $@

# The same for BTF: validation, then what ksnoop does with checked BTF.
FUZZ_BTF_SRCS := tests/fuzz/btf_fuzz.c src/lib/btfcheck.c src/lib/kbtf.c src/lib/btfjson.c src/lib/json_writer.c \
		 src/lib/ksyms.c src/lib/symcache.c src/lib/util.c src/lib/decode.c src/trace/plan.c src/trace/spec.c \
		 src/trace/ufunc.c src/lib/usym.c src/lib/udwarf.c src/lib/archinfo.c \
		 src/trace/tpoint.c src/lib/ktp.c src/trace/profile.c src/trace/ctype.c src/lib/bpfutil.c \
		 src/lib/errnames.c src/ktr/syscalls.c $(OUT)/ktr_systab.c
.PHONY: fuzz-btf
fuzz-btf: $(OUT)/fuzz/btf_fuzz
$(OUT)/fuzz/btf_fuzz: $(FUZZ_BTF_SRCS) $(wildcard src/*/*.h bpf/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_BTF_SRCS) $(LDLIBS) -o $@

# The same for ksnoop serve's configuration parser.
FUZZ_SERVE_SRCS := tests/fuzz/serve_config_fuzz.c src/serve/config.c src/lib/util.c src/lib/json_writer.c
.PHONY: fuzz-serve-config
fuzz-serve-config: $(OUT)/fuzz/serve_config_fuzz
$(OUT)/fuzz/serve_config_fuzz: $(FUZZ_SERVE_SRCS) $(wildcard src/*/*.h bpf/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_SERVE_SRCS) $(LDLIBS) -o $@
FUZZ_KPE_SRCS := tests/fuzz/kpe_parse_fuzz.c src/kpe/parse.c src/lib/archinfo.c src/lib/util.c \
		 src/lib/json_writer.c
.PHONY: fuzz-kpe-parse
fuzz-kpe-parse: $(OUT)/fuzz/kpe_parse_fuzz
$(OUT)/fuzz/kpe_parse_fuzz: $(FUZZ_KPE_SRCS) $(wildcard src/*/*.h bpf/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_KPE_SRCS) $(LDLIBS) -o $@
# ---- end ktrace/kdump ----

FORMAT_SRCS = $(wildcard src/*.[ch] src/*/*.[ch] bpf/*.bpf.c bpf/abi/*.h bpf/lib/*.h \
		bpf/trace/*.h bpf/agg/*.h \
		tests/unit/*.[ch] tests/bench/*.c tests/fuzz/*.c tests/host/*.c tests/vm/*.c)

-include $(wildcard $(OUT)/obj/*.d $(OUT)/obj/*/*.d $(OUT)/*.bpf.d $(OUT)/bench/*.bpf.d \
		     $(OUT)/deps/tests/*.d)

print-format-srcs:
	@echo $(FORMAT_SRCS)
