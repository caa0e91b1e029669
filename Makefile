# The front door: `make bench` and `make test` install what is missing, build (Release) and
# then run the suite or the tests. Everything else is CMake and ctest underneath.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
RESULTS ?= results
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps configure build bench quick test deb clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The suite with defaults; results/<host>-<UTC time>/ holds inventory, probe JSON, report. The
# last line states pipecheck's verdict and exit code; make's own status stays pipecheck's.
bench: build
	@$(BUILD_DIR)/bin/pipecheck run --out $(RESULTS) --baseline $(RESULTS)/baseline.json; \
	code=$$?; scripts/bench-verdict.sh $$code; exit $$code

quick: build
	@$(BUILD_DIR)/bin/pipecheck run --quick --out $(RESULTS)

test: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# build/pipecheck_<version>_amd64.deb: the command, the probes, the GPU burn module and the README.
deb: build
	@cd $(BUILD_DIR) && cpack -G DEB >/dev/null && ls -1 "$$PWD"/pipecheck_*.deb

clean:
	@rm -rf $(BUILD_DIR)
