# placesim: `make run` (the main job on built-in defaults) and `make test`
# (installs what the tests need, then runs them) are all a fresh machine needs.

GO       ?= go
BIN      := bin/placesim
OUT      ?= out
# the main job: every placer on the Celeritas Transformer (12 layers, 16 heads,
# hidden 2048, batch 256, sequence 32, training, layer granularity), which
# does not fit one V100 32 GB, on the Celeritas testbed (4 x V100 32 GB PCIe)
WORKLOAD ?= zoo:transformer?layers=12&heads=16&hidden=2048&seq=32&batch=256&training=true&granularity=layer
CLUSTER  ?= 4xV100-pcie
# per-placer limit: the MIP placers (pesto, tarnawski-ip-noncontig) need
# minutes on this graph and show as timed out at the default
TIMEOUT  ?= 20s
# Debian packages the tests use: the MIP solver and the graph partitioners
DEB_PKGS := coinor-cbc scotch metis
DEB_BINS := cbc scotch_gpart gpmetis

.PHONY: run build test deps bench fuzz vet fmt clean

build:
	$(GO) build -o $(BIN) ./cmd/placesim

# prints the comparison table; writes results, charts, trace.json and
# report.html into $(OUT)
run: build
	./$(BIN) compare --workload '$(WORKLOAD)' --cluster '$(CLUSTER)' --out '$(OUT)' --timeout $(TIMEOUT)

# deps installs the solver and partitioners when a binary is missing
# (apt-get as root, or through sudo); it says what to do when it cannot.
deps:
	@missing=""; for b in $(DEB_BINS); do command -v $$b >/dev/null 2>&1 || missing="$$missing $$b"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing $(DEB_PKGS) (missing:$$missing)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else \
	    echo "cannot install: run 'apt-get install $(DEB_PKGS)' as root"; exit 1; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(DEB_PKGS) >/dev/null; \
	fi

test: deps
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# every fuzz target of every package (file formats: native, ONNX,
# msr-fiddle, cluster, scenario, results, expert plan, stage file), each
# for FUZZX executions; a count, not a duration: a time-bounded run can end
# in a spurious "context deadline exceeded" (Go 1.26). Inputs found that
# crash stay in the package's testdata/fuzz; plain go test replays them.
FUZZX ?= 20000
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f ($(FUZZX) executions)"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZX)x $$pkg || exit 1; \
	  done; \
	done

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w .

clean:
	rm -rf bin $(OUT)
