# crshim: checkpoint/restore for Linux. See README.md.
#   make            build crshim            make test    deps + build + unit + zdtm quick tier
#   make deps       install Debian packages make demo    checkpoint/restore a running counter
#   make install    PREFIX=/usr/local       make bench   dump/restore throughput (bench-unix-tree: socket-fd trees)
#   make zdtm [MODE=cr|checkpoint|iters|fault|snaps|pagesrv|lazy|user|compat|ns|uns|cuns|rootless] [ITERS=N] [TESTS="a b"] [FAULT=name|all] [FAULT_NS=ns|uns|cuns] [REPEAT=N] [LOAD=N]
ARCH ?= $(shell uname -m)
CROSS_COMPILE ?=
CC := $(CROSS_COMPILE)gcc
LD := $(CROSS_COMPILE)ld
OBJCOPY := $(CROSS_COMPILE)objcopy
PREFIX ?= /usr/local
DESTDIR ?=
# A cross build (ARCH != this machine) gets its own dir: build-aarch64/.
B ?= build$(if $(filter-out $(shell uname -m),$(ARCH)),-$(ARCH))
SAN ?=
COV ?=

DEPS_PKGS := build-essential protobuf-c-compiler libprotobuf-c-dev libcap-dev busybox-static \
	libyajl-dev crun libnl-3-dev libnl-route-3-dev libseccomp-dev pkg-config nftables libcap2-bin git \
	strace # (make bench-unix-tree counts the dump's /proc reads with it)

WARN := -Wall -Wextra -Werror -Wno-unused-parameter
CFLAGS ?= -O2 -g
CFLAGS += $(WARN) -std=gnu11 -D_GNU_SOURCE -fno-strict-aliasing -MMD -MP $(SAN) $(COV)
CPPFLAGS += -I engine -I ns -I arch/$(ARCH) -I arch -I $(B)/proto -I $(B) -I oci
LDLIBS += -lprotobuf-c -lcap -lnl-route-3 -lnl-3 -lyajl
# make coverage: the object and --wrap flags that write the counters of children (contrib/qa/cov-flush.c)
COV_LDLIBS ?=
LDLIBS += $(COV_LDLIBS)
# libnl-3 headers for ns/ only (the same headers serve the arm64 cross build)
NL_CFLAGS := -I/usr/include/libnl3

PROTOS := $(wildcard proto/*.proto)
PROTO_C := $(patsubst proto/%.proto,$(B)/proto/%.pb-c.c,$(PROTOS))
PROTO_H := $(PROTO_C:.c=.h)
PROTO_O := $(PROTO_C:.c=.o)

ENGINE_SRC := $(wildcard engine/*.c) $(filter-out engine/restorer/%,$(wildcard engine/*/*.c)) $(wildcard ns/*.c) $(wildcard arch/*.c) $(wildcard arch/$(ARCH)/*.c) \
	$(wildcard oci/*.c)
ENGINE_O := $(patsubst %.c,$(B)/%.o,$(ENGINE_SRC)) $(PROTO_O) $(B)/restorer-blob.o
SHIM_SRC := $(wildcard shim/*.c)
SHIM_O := $(patsubst %.c,$(B)/%.o,$(SHIM_SRC))

# The restorer blob: freestanding, position independent, raw syscalls only.
BLOB_SRC := $(wildcard engine/restorer/*.c)
BLOB_ASM := $(wildcard arch/$(ARCH)/restorer-*.S)
BLOB_O := $(patsubst %.c,$(B)/blob/%.o,$(BLOB_SRC)) $(patsubst %.S,$(B)/blob/%.o,$(BLOB_ASM))
BLOB_CFLAGS := -O2 -g0 -std=gnu11 -D_GNU_SOURCE $(WARN) -ffreestanding -nostdlib -fno-stack-protector -fpie \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-jump-tables -fno-builtin -fvisibility=hidden \
	-fno-common -U_FORTIFY_SOURCE -MMD -MP -I engine -I engine/restorer -I arch/$(ARCH) -I arch
# arm64: atomics inline, not as calls into libgcc's outline-atomics helpers (the blob links no library).
BLOB_CFLAGS_aarch64 := -mno-outline-atomics
BLOB_CFLAGS += $(BLOB_CFLAGS_$(ARCH))

all: $(B)/crshim $(B)/crshim-hook $(B)/crshim-runtime
	@[ -n "$(CROSS_COMPILE)" ] || ln -sf $(B)/crshim crshim

$(B)/proto/%.pb-c.c $(B)/proto/%.pb-c.h: proto/%.proto
	@mkdir -p $(B)/proto
	protoc-c --proto_path=proto --c_out=$(B)/proto $<

$(B)/proto/%.pb-c.o: $(B)/proto/%.pb-c.c | $(PROTO_H)
	$(CC) -O2 -g $(SAN) $(COV) -I $(B)/proto -c -o $@ $<

$(B)/%.o: %.c | $(PROTO_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/ns/%.o: CPPFLAGS += $(NL_CFLAGS)

$(B)/blob/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BLOB_CFLAGS) -c -o $@ $<

$(B)/blob/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(BLOB_CFLAGS) -c -o $@ $<

$(B)/restorer.elf: $(BLOB_O) engine/restorer/restorer.lds
	$(LD) -nostdlib -static -T engine/restorer/restorer.lds -o $@ $(BLOB_O)

$(B)/restorer.bin: $(B)/restorer.elf
	$(OBJCOPY) -O binary $< $@

$(B)/restorer-blob.o: engine/restorer/restorer-blob.S $(B)/restorer.bin
	$(CC) -c -I $(B) -o $@ $<

# Whole: the fd kinds (engine/files/fd-kind.h) are found through a linker section, not by a call.
LIBCRSHIM = -Wl,--whole-archive $(B)/libcrshim.a -Wl,--no-whole-archive
$(B)/libcrshim.a: $(ENGINE_O)
	rm -f $@
	$(CROSS_COMPILE)ar rcs $@ $^

$(B)/crshim: $(SHIM_O) $(B)/libcrshim.a
	$(CC) $(SAN) $(COV) -o $@ $(SHIM_O) $(LIBCRSHIM) $(LDLIBS)

# crshim-hook: the OCI runtime hook (hooks/), the registry of oci/.
HOOK_SRC := $(wildcard hooks/*.c)
$(B)/crshim-hook: $(patsubst %.c,$(B)/%.o,$(HOOK_SRC)) $(B)/libcrshim.a
	$(CC) $(SAN) $(COV) -o $@ $^ $(LDLIBS)

# crshim-runtime: the runc-compatible front end over crun for Podman (runtime/): checkpoint/restore by crshim.
RUNTIME_SRC := $(wildcard runtime/*.c)
$(B)/crshim-runtime: $(patsubst %.c,$(B)/%.o,$(RUNTIME_SRC)) $(B)/libcrshim.a
	$(CC) $(SAN) $(COV) -o $@ $^ $(LDLIBS)

-include $(shell find $(B) -path $(B)/zdtm -prune -o -name '*.d' -print 2>/dev/null) # zdtm's are its own

deps:
	$(call qa_apt_install,$(DEPS_PKGS))

install: all
	install -D -m 0755 $(B)/crshim $(DESTDIR)$(PREFIX)/sbin/crshim
	install -D -m 0755 $(B)/crshim-hook $(DESTDIR)$(PREFIX)/libexec/crshim/crshim-hook
	install -D -m 0755 $(B)/crshim-runtime $(DESTDIR)$(PREFIX)/libexec/crshim/crshim-runtime
	# oci-hooks(5) for Podman/CRI-O: copy it into /etc/containers/oci/hooks.d/ to have crshim-hook called
	sed 's|/usr/local/libexec/crshim/crshim-hook|$(PREFIX)/libexec/crshim/crshim-hook|' contrib/hooks.d/crshim.json \
		>$(B)/crshim-hook.json
	install -D -m 0644 $(B)/crshim-hook.json $(DESTDIR)$(PREFIX)/share/containers/oci/hooks.d/crshim.json
	install -D -m 0644 contrib/crshim.8 $(DESTDIR)$(PREFIX)/share/man/man8/crshim.8
	install -D -m 0644 contrib/crshim.bash-completion $(DESTDIR)$(PREFIX)/share/bash-completion/completions/crshim

UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/unit/%,$(UNIT_SRC))
$(B)/unit/%: tests/unit/%.c $(B)/libcrshim.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIBCRSHIM) $(LDLIBS)

unit: $(UNIT_BIN)
	@prove -e '' $(UNIT_BIN)

zdtm: all
	$(MAKE) -C tests/zdtm run CRSHIM=$(CURDIR)/$(B)/crshim MODE=$(or $(MODE),cr) ITERS=$(or $(ITERS),3) \
		TESTS="$(TESTS)" FAULT="$(FAULT)" FAULT_NS="$(FAULT_NS)" REPEAT="$(or $(REPEAT),1)" LOAD="$(or $(LOAD),0)"

# A cross-section of the suite (one or more tests of every area of the engine): make test runs mode checkpoint on
# it (the whole mode: make zdtm MODE=checkpoint), CI runs the sanitizers on it (make quick-tests prints it).
QUICK_TESTS := pid thread00 fork00 session_child subreaper00 pidns_tree zombie00 stopped00 sig_pending \
	posix_timers rseq creds mem_sparse vma_many shm_anon_shared memfd_map_shared clone_files clone_fs fd_files \
	fd_shared file_shared_offset unlink_fstat00 file_locks_posix pipe_shared pipe_full eventfd00 epoll_tree \
	signalfd00 timerfd00 inotify00 memfd00 pidfd00 sk_unix_listen_queue sk_unix_queued_data sk_unix_tree \
	sk_inet_tcp_listen sk_inet_udp sk_inet_tcp_established pty00 tty_ctty shell_job_tty clone_vm pidns_threads \
	sk_unix_scm_rights_file epoll_shared cow_shared
quick-tests:
	@echo $(QUICK_TESTS)

# Each step prints how long it took (CI must stay under 45 minutes: see the README's table of targets).
# make test runs a quick cross-section of modes user and compat (the full ones: make zdtm MODE=user|compat).
# and of mode cuns (a tree born in its user namespace: threads, unix sockets on its tmpfs, a masked path;
# the full one: make zdtm-cuns)
CUNS_QUICK_TESTS := pipe00 thread00 sk_unix_tree nsmnt_masked nsmnt_sk_unix zombie_leader nsmnt_ghost
# and of mode ns (PID, mount, network, IPC, UTS namespaces and a root of the test's own; the full one: make zdtm-ns);
# CI runs the sanitizers on it in mode ns too (a tree with its own mount tree takes other paths of the restore)
NS_QUICK_TESTS := pidns_tree zombie_leader sk_unix_group_gone nsmnt_ghost nsmnt_sk_unix nsmnt_fifo clone_vm_fds \
	netns_routes ipcns_sem uts_hostname sk_unix_scm_epoll timens_offsets
USER_QUICK_TESTS ?= pid fork00 thread00 fd_files pipe00 sig_pending sk_unix_pair_dgram sk_inet_tcp_established
COMPAT_QUICK_TESTS ?= pid fork00 thread00 fd_files pipe00 sig_pending shm_anon posix_timers
TIMED = @t0=$$(date +%s); trap 'echo "make test: [$$(($$(date +%s) - t0)) s] $$step"' EXIT; step=
test: deps deps-integration
	$(MAKE) all
	$(TIMED)unit; $(MAKE) unit
	$(TIMED)"zdtm cr"; $(MAKE) zdtm MODE=cr
	$(TIMED)"zdtm checkpoint (quick)"; $(MAKE) zdtm MODE=checkpoint TESTS="$(QUICK_TESTS)"
	$(TIMED)"zdtm LOAD=2"; $(MAKE) zdtm MODE=cr TESTS="fork_churn fork_bomb_exit exec_churn" LOAD=2
	$(TIMED)"zdtm user (quick)"; $(MAKE) zdtm MODE=user TESTS="$(USER_QUICK_TESTS)"
	$(TIMED)"zdtm compat (quick)"; $(MAKE) zdtm MODE=compat TESTS="$(COMPAT_QUICK_TESTS)"
	$(TIMED)"zdtm ns (quick)"; $(MAKE) zdtm MODE=ns TESTS="$(NS_QUICK_TESTS)"
	$(TIMED)"zdtm cuns (quick)"; $(MAKE) zdtm MODE=cuns TESTS="$(CUNS_QUICK_TESTS)"
	$(TIMED)integration; $(MAKE) integration INTEGRATION_TAGS="$(if $(INTEGRATION_KNOWN_MISSING),$(INTEGRATION_KNOWN_MISSING)$(comma))!extra"
	$(TIMED)"zdtm snaps"; $(MAKE) zdtm MODE=snaps TESTS="mem_churn mem_incr mem_sparse heap_brk fork00"

# Runtimes for tests/integration/ (runc, Podman, containerd) and what the tests use beside them.
INTEGRATION_PKGS := runc podman containerd bats jq busybox-static iproute2 libc6-dev
deps-integration:
	$(call qa_apt_install,$(INTEGRATION_PKGS))

# make integration [INTEGRATION_FILES="runc podman"] [INTEGRATION_TAGS='!needs:X']: the bats files of
# tests/integration/ with build/crshim as the runtimes' criu. Tests tagged needs:X wait for a missing piece X;
# `make test` leaves out the tags in INTEGRATION_KNOWN_MISSING (each named with what it waits for).
INTEGRATION_KNOWN_MISSING :=
comma := ,
# Tests tagged `extra` run in make integration only, not in make test (CI's time budget).
INTEGRATION_FILES ?= $(patsubst tests/integration/%.bats,%,$(wildcard tests/integration/*.bats))
integration: all
	CRSHIM=$(CURDIR)/$(B)/crshim HELPERS_BIN=$(CURDIR)/$(B)/integration bats --timing \
		$(if $(INTEGRATION_TAGS),--filter-tags '$(INTEGRATION_TAGS)') \
		$(addprefix tests/integration/,$(addsuffix .bats,$(INTEGRATION_FILES)))

# runc checkpoint/restore times of a busybox container and of one holding 1 GiB; CRIU=/path/to/criu: the same
# with that binary, and the ratio.
bench-runc: all
	tests/integration/bench-runc.sh $(CURDIR)/$(B)/crshim $(CRIU)

# Programs that demo.sh and bench.sh checkpoint (they find them next to crshim, in $(B)/contrib/).
CONTRIB_BIN := $(B)/contrib/demo-counter $(B)/contrib/bench-mem $(B)/contrib/bench-tree $(B)/contrib/bench-incr $(B)/contrib/bench-sktree
$(B)/contrib/%: contrib/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(WARN) -std=gnu11 -D_GNU_SOURCE -o $@ $<

demo: deps
	$(MAKE) all $(CONTRIB_BIN)
	./contrib/demo.sh $(CURDIR)/$(B)/crshim

bench: all $(CONTRIB_BIN)
	CRIU='$(CRIU)' ./contrib/bench.sh $(CURDIR)/$(B)/crshim
	CRIU='$(CRIU)' ./contrib/bench-tree.sh $(CURDIR)/$(B)/crshim
	./contrib/bench-incr.sh $(CURDIR)/$(B)/crshim
	./contrib/bench-pagesrv.sh $(CURDIR)/$(B)/crshim

# bench.sh's unix-tree part alone: trees holding many unix socket fds dumped and restored (seconds; CRIU=path: the
# ratio), and the check that fails (exit 1) when the dump's reads of /proc are not linear in the tree's fds (strace
# counts them: a dump quadratic in them, as before da125ac, fails at any load; speed itself never fails).
bench-unix-tree: all $(CONTRIB_BIN)
	CRIU='$(CRIU)' CRSHIM_BENCH_PARTS=unix-tree ./contrib/bench.sh $(CURDIR)/$(B)/crshim

# Restore of a 1 GiB process eagerly and with --lazy-pages: time until it runs, until lazy-pages has all in.
bench-lazy: all $(CONTRIB_BIN)
	./contrib/bench-lazy.sh $(CURDIR)/$(B)/crshim

# Dump through `crshim page-server` on 127.0.0.1 against a local dump (MB/s), restore from the server's dir.
bench-pagesrv: all $(CONTRIB_BIN)
	./contrib/bench-pagesrv.sh $(CURDIR)/$(B)/crshim

format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(B) crshim
	$(MAKE) -C tests/zdtm clean

# make zdtm-ns: every test in its own PID/mount/net/IPC/UTS namespaces under a root of its own (MODE=ns)
zdtm-ns:
	$(MAKE) zdtm MODE=ns

# make zdtm-uns: the same, all owned by a user namespace of the test's own (uid/gid map 0 100000 65536; MODE=uns)
zdtm-uns:
	$(MAKE) zdtm MODE=uns
# make zdtm-cuns: the user namespace owns the PID and mount namespaces too, as a rootless container's
zdtm-cuns:
	$(MAKE) zdtm MODE=cuns
# make zdtm-rootless: as cuns, but a non-root user (crshim-zdtm) makes the user namespace (mapping only itself) and
# the test's mount namespace in it, and crshim runs in it as that user, as a rootless container's runtime does
zdtm-rootless:
	$(MAKE) zdtm MODE=rootless

.PHONY: quick-tests zdtm-ns zdtm-uns zdtm-cuns zdtm-rootless all deps install unit zdtm test demo bench bench-lazy bench-unix-tree clean format-check deps-integration integration bench-runc
.SECONDARY:

# ==================================================================================================================
# Quality gates (issue 3). The work is done by contrib/qa/*.sh (see contrib/qa/README.md). Each gate builds in its own
# dir and builds $(B)/crshim directly, never `all` (which repoints ./crshim). Tools: `make deps-qa`.
#   make coverage [COV_MIN=80]    gcov build, unit + zdtm (cr, ns) + integration, lines per module, lcov HTML
#   make analyze                  scan-build + cppcheck + clang-tidy (.clang-tidy), zero findings allowed
#   make deps-check               the dependencies between folders point one way (contrib/qa/deps.sh)
#   make format | format-check    clang-format (.clang-format) rewrite | check
#   make sanitize                 ASan + UBSan build, unit + zdtm (cr), any sanitizer report fails
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_JOBS=1]  the 8 libFuzzer targets (tests/fuzz/), seeded from real images; fuzz-regress replays
#                                 tests/fuzz/regress/
#   make cross                    make ARCH=aarch64 CROSS_COMPILE=aarch64-linux-gnu- (needs `make deps-cross`)
#   make cross-test               + the image and CLI unit tests for arm64 under qemu-user
QA_PKGS := clang clang-tools clang-tidy clang-format cppcheck lcov bear libclang-rt-14-dev file \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
CROSS_ARCH_PKGS := libprotobuf-c-dev:arm64 libcap-dev:arm64 libnl-3-dev:arm64 libnl-route-3-dev:arm64 libyajl-dev:arm64 qemu-user-static
# Unit tests that run under qemu-user on arm64 (no ptrace there): the image layer and the CLI parser.
CROSS_UNIT_TESTS ?= image cli crc32c
FUZZ_SECONDS ?= 60
# targets fuzzed at a time (each libFuzzer run takes one core)
FUZZ_JOBS ?= 1
COV_B ?= build-cov
SAN_B ?= build-san
FUZZ_B ?= build-fuzz
ANALYZE_B ?= build-analyze
# Sources the format gate looks at: everything tracked except generated files (none tracked today).
FORMAT_SRC = $(shell git ls-files '*.c' '*.h')
QA_ENV = MAKE="$(MAKE)" ARCH="$(ARCH)"

define qa_apt_install
	@if [ "$$(id -u)" != 0 ]; then echo "run as root (apt-get)"; exit 1; fi
	@arch=$$(dpkg --print-architecture); missing=""; for p in $(1); do \
		case "$$p" in *:*) q=$$p ;; *) q="$$p $$p:$$arch" ;; esac; ok=; \
		for n in $$q; do dpkg-query -W -f='$${Status}' $$n 2>/dev/null | grep -q 'ok installed' && ok=1; done; \
		[ -n "$$ok" ] || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "all installed: $(1)"; fi
endef

deps-qa:
	$(call qa_apt_install,$(QA_PKGS))

deps-cross: deps-qa
	@dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64 && apt-get update -qq; }
	$(call qa_apt_install,$(CROSS_ARCH_PKGS))

coverage:
	$(QA_ENV) contrib/qa/coverage.sh $(COV_B)

analyze:
	$(QA_ENV) contrib/qa/analyze.sh $(ANALYZE_B)

# The call and include graph between folders (nm of the objects, #include lines): no upward edge, no loop.
deps-check: $(B)/crshim
	$(QA_ENV) contrib/qa/deps.sh $(B)

format:
	clang-format -i $(FORMAT_SRC)

sanitize:
	$(QA_ENV) SAN_NS_TESTS="$(NS_QUICK_TESTS)" contrib/qa/sanitize.sh $(SAN_B)

# crshim, the unit tests and the contrib programs, all warning-free for arm64 (they cannot run here).
cross:
	$(MAKE) ARCH=aarch64 CROSS_COMPILE=aarch64-linux-gnu- B=build-aarch64 build-aarch64/crshim \
		$(patsubst tests/unit/%.c,build-aarch64/unit/%,$(UNIT_SRC)) \
		$(patsubst contrib/%.c,build-aarch64/contrib/%,$(wildcard contrib/*.c))
	file build-aarch64/crshim | grep -q 'ARM aarch64' && file build-aarch64/crshim

cross-test: cross
	prove -e 'qemu-aarch64-static -L /usr/aarch64-linux-gnu' $(addprefix build-aarch64/unit/,$(CROSS_UNIT_TESTS))

# libFuzzer: the engine (with the restorer blob: the fd-kind table links the library whole) and shim (not main) built with clang into $(FUZZ_B)/libfuzz.a.
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz-*.c))
FUZZ_LIB_O = $(ENGINE_O) $(filter-out $(B)/shim/main.o,$(SHIM_O))

$(B)/libfuzz.a: $(FUZZ_LIB_O)
	rm -f $@
	$(CROSS_COMPILE)ar rcs $@ $^

$(B)/fuzz/mkseeds: tests/fuzz/mkseeds.c $(B)/libfuzz.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -Wl,--whole-archive $(B)/libfuzz.a -Wl,--no-whole-archive $(LDLIBS)

$(B)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(B)/libfuzz.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I shim $(CFLAGS) -fsanitize=fuzzer -o $@ $< -Wl,--whole-archive $(B)/libfuzz.a -Wl,--no-whole-archive $(LDLIBS)

fuzz-build:
	$(MAKE) B=$(FUZZ_B) CC=clang SAN="$(FUZZ_SAN)" $(FUZZ_B)/fuzz/mkseeds $(addprefix $(FUZZ_B)/fuzz/,$(FUZZ_TARGETS))

# Seeds come from dumps made with $(B)/crshim; if it does not build, from images made with the image-layer API.
fuzz: fuzz-build
	-@$(MAKE) -s $(B)/crshim >/dev/null 2>&1 || echo "fuzz: $(B)/crshim does not build: synthetic seeds only"
	$(QA_ENV) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) contrib/qa/fuzz.sh $(FUZZ_B) $(CURDIR)/$(B)/crshim $(FUZZ_TARGETS)

fuzz-regress: fuzz-build
	$(QA_ENV) contrib/qa/fuzz.sh --regress $(FUZZ_B) - $(FUZZ_TARGETS)

clean-qa:
	rm -rf $(COV_B) $(SAN_B) $(FUZZ_B) $(ANALYZE_B) build-aarch64

.PHONY: deps-qa deps-cross deps-check coverage analyze format sanitize cross cross-test fuzz-build fuzz fuzz-regress clean-qa
