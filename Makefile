# SPDX-License-Identifier: Apache-2.0
# The two commands: `make demo` and `make test`. Both install what is missing (as root), then build.
# The demo needs the build packages only: a build folder it configures itself leaves the tests out
# (-DSTORQUAL_TESTS=OFF); `make test` always configures with the tests, so either order works in one
# build folder, and a folder `make test` configured keeps its tests through `make demo`.
BUILD      ?= build
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
CTEST_ARGS ?=
DEMO_DIR   ?= storqual-demo
PREFIX     ?= /usr/local

.PHONY: lab archive-writers all demo test build deps-build deps-test deps-demo install uninstall fresh format format-check sanitize asan tsan fuzz fuzz-long bench clean

all: build

deps-build:
	@scripts/install-deps.sh build
deps-test:
	@scripts/install-deps.sh test
deps-demo:
	@scripts/install-deps.sh demo

# Only when the folder is not configured yet; an existing configuration (with or without the
# tests) is kept.
$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DSTORQUAL_WERROR=ON -DSTORQUAL_TESTS=OFF $(CMAKE_ARGS)

build: deps-build $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# A real qualification on an embedded default: a scratch file in the working directory, quick suite.
demo: deps-demo $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target storqual
	@scripts/demo.sh $(BUILD)/app/storqual $(DEMO_DIR)

test: deps-test
	cmake -S . -B $(BUILD) -G Ninja -DSTORQUAL_WERROR=ON -DSTORQUAL_TESTS=ON $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)
	@scripts/format-check.sh
	@# A test that cannot run fails; the only skips allowed are in tests/expected-skips, and the
	@# skips (and the ten slowest tests) are printed at the end, whatever ctest said.
	@rc=0; cd $(BUILD) && ctest --output-on-failure -j 2 --output-junit ctest-junit.xml $(CTEST_ARGS) || rc=$$?; \
	  cd $(CURDIR) && python3 scripts/check-skips.py $(BUILD)/ctest-junit.xml || rc=1; exit $$rc

# `storqual` on the PATH: the binary, its suites and sheets (share/storqual, found beside bin/), the
# man page and the docs under PREFIX. `make uninstall` removes what the last install wrote.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)
uninstall:
	@test -f $(BUILD)/install_manifest.txt || { echo "uninstall: no $(BUILD)/install_manifest.txt: nothing was installed from $(BUILD)" >&2; exit 1; }
	xargs -d '\n' rm -f -- < $(BUILD)/install_manifest.txt
	@# Then the directories of storqual's own that are left empty, nothing else (bin/, man1/ stay).
	@sed -n 's|^\(.*/share/storqual\)/.*|\1|p; s|^\(.*/share/doc/storqual\)/.*|\1|p' $(BUILD)/install_manifest.txt \
	  | sort -u | xargs -r -d '\n' -I{} find {} -depth -type d -empty -delete
	rm -f $(BUILD)/install_manifest.txt

# `make demo` and `make test` (FRESH_STEPS) in a fresh Debian 12 root filesystem, as root, removed
# afterwards (scripts/fresh.sh). Not part of `make test`.
fresh:
	scripts/fresh.sh

# The QEMU hardware lab (tests/lab/): every emulated disk's identity with and without udev, a run
# on each, the guard, a SMART warning raised mid-run. `make test` runs its short pass. Then the
# power-cut lab's short pass: one cut on each nbdkit device (docs/power-cut.md, "The lab";
# POWERCUT_CUTS=10 for the full proof).
POWERCUT_CUTS ?= 1
lab: build
	python3 tests/lab/lab.py --build $(BUILD)
	python3 tests/lab/powercut_lab.py --build $(BUILD) --cuts $(POWERCUT_CUTS)

# The archive's eight concurrent writers at issue 29's size: 8 processes x 50 runs, each recorded
# into one SQLite file and one PostgreSQL database at once (docs/archive.md, "Many writers");
# `make test` runs them at 8 x 10.
archive-writers: deps-test
	cmake -S . -B $(BUILD) -G Ninja -DSTORQUAL_WERROR=ON -DSTORQUAL_TESTS=ON $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && STORQUAL_TEST_WRITER_RUNS=50 ctest --output-on-failure -R 'ArchiveRun[.]EightProcesses'

format:
	@scripts/format-check.sh --fix
format-check:
	@scripts/format-check.sh

# Sanitizers: every test under ASan+UBSan, then under TSan (job threads).
sanitize: asan tsan
asan: deps-test
	cmake -S . -B build-asan -G Ninja -DSTORQUAL_SANITIZE=address -DCMAKE_BUILD_TYPE=Debug
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure $(CTEST_ARGS)
tsan: deps-test
	cmake -S . -B build-tsan -G Ninja -DSTORQUAL_SANITIZE=thread -DCMAKE_BUILD_TYPE=Debug
	cmake --build build-tsan -j $(JOBS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:suppressions=$(CURDIR)/tests/tsan.supp ctest --output-on-failure $(CTEST_ARGS)

# Fuzzers (clang libFuzzer, ASan+UBSan): FUZZ_RUNS executions per target over the committed corpus.
BENCH_ARGS ?= loop --fidelity
FUZZ_RUNS ?= 1000000
fuzz: deps-test
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DSTORQUAL_FUZZ=ON -DSTORQUAL_TESTS=OFF -DSTORQUAL_SANITIZE=address
	cmake --build build-fuzz -j $(JOBS)
	@scripts/fuzz.sh build-fuzz $(FUZZ_RUNS)

bench: build
	bench/vs-fio.sh $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz
