# SPDX-License-Identifier: LGPL-2.1-or-later
# Front door: meson + ninja underneath.
#   make          build into build/
#   make check    install missing dependencies (root), build, run every test,
#                 then the same tests built with ASan+UBSan (build-asan/)
#   make fuzz     build the libFuzzer targets (build-fuzz/) and fuzz each
#                 for FUZZ_SECONDS (default 600)
#   make demo     mount usereventsd privately, run examples/user_events_example,
#                 enable its events, show the trace, unmount (scripts/demo)
#   make soak     run tests/soak against usereventsd for SOAK_SECONDS (default 600)
#   make stress   tests/stress: STRESS_PROCS (200) processes fork/exec/exit under
#                 STRESS_TOGGLES (1000) toggles for STRESS_SECONDS (300); its
#                 short form (stress-short) runs in make check
#   make bench    install LTTng (bench/deps.txt), build (reconfigured when
#                 LTTng-UST came in since), and run bench/run: libuserevents
#                 vs writev vs LTTng-UST vs write(2); fails when a comparison
#                 cannot run
#   make refkernel-check  run the conformance program on the reference
#                 kernel and compare with tests/conformance/refkernel.out
#   make install  meson install of build/ (PREFIX from meson setup, default
#                 /usr/local; DESTDIR honoured), then ldconfig for the loader
#   make uninstall  remove every file and directory make install made (meson's
#                 uninstall, from build/meson-logs/install-log.txt)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
SOAK_SECONDS ?= 600
STRESS_SECONDS ?= 300
STRESS_PROCS ?= 200
STRESS_TOGGLES ?= 1000
REFKERNEL ?= ../shared/refkernel

.PHONY: all deps check test asan-check fuzz soak stress refkernel-check demo clean install uninstall

# A package installed since the build directory was configured (make check,
# make bench install some) reconfigures it: meson looks for optional
# dependencies only at setup (scripts/reconfigure-if-deps).
all: $(BUILD)/build.ninja
	scripts/reconfigure-if-deps $(BUILD)
	ninja -C $(BUILD)

$(BUILD)/build.ninja:
	meson setup $(BUILD)
	scripts/reconfigure-if-deps --configured $(BUILD)

deps:
	scripts/install-deps

test: all
	meson test -C $(BUILD) --print-errorlogs || { scripts/failed-checks $(BUILD); exit 1; }

check: deps
	$(MAKE) test
	$(MAKE) asan-check

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all -Dc_link_args=-fno-sanitize-recover=all
	scripts/reconfigure-if-deps --configured $(ASAN_BUILD)

asan-check: $(ASAN_BUILD)/build.ninja
	scripts/reconfigure-if-deps $(ASAN_BUILD)
	ninja -C $(ASAN_BUILD)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C $(ASAN_BUILD) --print-errorlogs || { scripts/failed-checks $(ASAN_BUILD); exit 1; }

$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) -Dfuzzing=true

fuzz: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD)
	scripts/fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS)

demo: deps
	$(MAKE) all
	scripts/demo $(BUILD)

soak: all
	SOAK_SECONDS=$(SOAK_SECONDS) USEREVENTSD=$(BUILD)/daemon/usereventsd $(BUILD)/tests/soak/soak

bench: deps
	scripts/install-deps bench/deps.txt
	$(MAKE) all
	bench/run $(BUILD)

stress: all
	STRESS_SECONDS=$(STRESS_SECONDS) STRESS_PROCS=$(STRESS_PROCS) STRESS_TOGGLES=$(STRESS_TOGGLES) \
		USEREVENTSD=$(BUILD)/daemon/usereventsd $(BUILD)/tests/stress/stress

refkernel-check: all
	scripts/refkernel-check $(BUILD) $(REFKERNEL)

# The loader's cache knows the library at once (a prefix under /usr/local);
# not for a DESTDIR (a package's staging tree) or without root.
LDCONFIG = if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

install: all
	meson install -C $(BUILD) --no-rebuild $(if $(DESTDIR),--destdir "$(DESTDIR)")
	$(LDCONFIG)

uninstall:
	@[ -f $(BUILD)/meson-logs/install-log.txt ] || { echo "make uninstall: nothing installed from $(BUILD) (no meson-logs/install-log.txt)"; exit 1; }
	ninja -C $(BUILD) uninstall >$(BUILD)/meson-logs/uninstall.txt
	@grep -E '^(Deleted|Failed):' $(BUILD)/meson-logs/uninstall.txt
	@# A directory someone else put files in stays; anything else left is an error.
	@! grep '^Could not delete' $(BUILD)/meson-logs/uninstall.txt | grep -v 'Directory not empty'
	$(LDCONFIG)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
