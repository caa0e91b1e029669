# The front door: `make bench` and `make test` install what is missing, build (Release) and
# then run the suite or the tests. Everything else is CMake and ctest underneath.
# `make`, `make bench` and `make quick` install the build and run dependencies only and build the
# command and the probes, no test (-DPIPECHECK_BUILD_TESTS=OFF); `make test` adds the test tools
# (GoogleTest; Slurm and munge, which start services; Chromium; ...) and builds the tests. One
# build folder switches between the two: the cache option is set on every configure.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
RESULTS ?= results
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
# Set per target below: the package roles of scripts/debian-packages.txt and the tests option.
DEPS_FLAGS =
BUILD_TESTS = OFF

.PHONY: all deps configure build bench quick test deb clean

all: build

deps:
	@scripts/install-deps.sh $(DEPS_FLAGS)

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DPIPECHECK_BUILD_TESTS=$(BUILD_TESTS) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The suite with defaults; results/<host>-<UTC time>/ holds inventory, probe JSON, report. The
# last line states pipecheck's verdict and exit code; make's own status stays pipecheck's.
bench: build
	@$(BUILD_DIR)/bin/pipecheck run --out $(RESULTS) --baseline $(RESULTS)/baseline.json; \
	code=$$?; scripts/bench-verdict.sh $$code; exit $$code

quick: build
	@$(BUILD_DIR)/bin/pipecheck run --quick --out $(RESULTS)

# Target-specific values reach the prerequisites (deps, configure, build) of that target.
test: DEPS_FLAGS = --with-tests
test: BUILD_TESTS = ON
test: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# build/pipecheck_<version>_amd64.deb: the command, the probes, the GPU burn module and the README.
deb: DEPS_FLAGS = --with-deb
deb: build
	@cd $(BUILD_DIR) && cpack -G DEB >/dev/null && ls -1 "$$PWD"/pipecheck_*.deb

clean:
	@rm -rf $(BUILD_DIR)
