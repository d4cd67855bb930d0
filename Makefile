# placesim: `make run` (the main job on built-in defaults) and `make test`
# (installs what the tests need, then runs them) are all a fresh machine needs.

GO       ?= go
BIN      := bin/placesim
OUT      ?= out/compare
# the main job: every placer on a Transformer training graph at operator
# granularity (2 layers, 372 ops with the backward and update ops) on the
# Celeritas testbed (4 x V100 32 GB on PCIe), every plan played in one
# regime (REGIME: step; e.g. REGIME=1f1b:16 or dp:4, see placesim compare
# --help), so that the ranking compares like with like. About a minute on
# 2 cores.
WORKLOAD ?= zoo:transformer?granularity=op&training=true&layers=2
CLUSTER  ?= 4xV100-pcie
REGIME   ?= step
# per-placer limit; the MIP placers get a CBC time limit of MIP_LIMIT
# seconds (CBC may overrun it by half plus 5 s, and takes up to 10 s more
# to stop when interrupted: 8 s can become 27 s on a loaded machine, so
# TIMEOUT leaves room for that and the model build)
TIMEOUT  ?= 60s
MIP_LIMIT ?= 8
# Debian packages the tests use: the MIP solver, the graph partitioners and
# protoc (the Chakra schema test compiles et_def.proto; go generate in
# workloads/chakra/etdef regenerates its Go types)
DEB_PKGS := coinor-cbc scotch metis protobuf-compiler
DEB_BINS := cbc scotch_gpart gpmetis protoc

.PHONY: run build test validate check-beyond deps bench bench-ratio fuzz vet fmt clean

build:
	$(GO) build -o $(BIN) ./cmd/placesim

# prints the comparison table; writes results, charts, trace.json and
# report.html into $(OUT). It installs the tools the placers need as `make
# test` does (deps); where it cannot, it says once which placers it skips
# and why, and compares the others.
run: build
	@$(MAKE) --no-print-directory deps || echo "make run: could not install $(DEB_PKGS): the placers that need them are skipped"
	@skip=""; why=""; opts=""; \
	if command -v cbc >/dev/null 2>&1; then \
	  opts="--opt pesto.timelimit=$(MIP_LIMIT)s --opt tarnawski-ip.time-limit=$(MIP_LIMIT) --opt tarnawski-ip-noncontig.time-limit=$(MIP_LIMIT)"; \
	else skip="$$skip,pesto,tarnawski-ip,tarnawski-ip-noncontig"; why="$$why; cbc (coinor-cbc) missing: pesto, tarnawski-ip, tarnawski-ip-noncontig"; fi; \
	command -v gpmetis >/dev/null 2>&1 || { skip="$$skip,metis"; why="$$why; gpmetis (metis) missing: metis"; }; \
	command -v scotch_gpart >/dev/null 2>&1 || { skip="$$skip,scotch"; why="$$why; scotch_gpart (scotch) missing: scotch"; }; \
	if [ -n "$$why" ]; then echo "make run: skipped placers (install with make deps as root)$$why"; fi; \
	./$(BIN) compare --workload '$(WORKLOAD)' --cluster '$(CLUSTER)' --regimes '$(REGIME)' --out '$(OUT)' --timeout $(TIMEOUT) --allow-failures \
	  $${skip:+--skip "$${skip#,}"} $$opts

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

# the cost model against the measured throughputs of validation/: issue 29
# asks median |error| <= 6 %, worst <= 15 % and every 8-GPU row within
# 10 %; today 3.5 %, 9.0 % and 9.0 % (tbig 8x +9.0 %, p003 +8.2 %, p039
# +5.0 %; README "Fidelity"), so CI holds the issue's 10 % for the worst
# and the 8-GPU rows and what is reached, rounded up to 0.5 %, for the
# median. History of the worst and 8-GPU bounds: 12.5 % while both
# sides of a fairseq batch ran at its longer side's length (tbig 8x
# +12.0 %; now the target's length is drawn from the source's,
# ratio=gale-church); 13.5 % while the Transformer rows ran every batch at
# 32 tokens (tbig 8x +13.1 %; now on fairseq's batches of the WMT16 en-de
# lengths, lengths=wmt16-en-de); 14 % while tbig 8x was +13.8 % (the
# engine divided the dense embedding gradient's bytes among the replicas;
# workloads.Op.FixedBytes since); 13.5 % before that while the engine
# played the DGX-1's all-reduce on one ring at 48 GB/s instead of NCCL's
# rings over every NVLink (a bound held by a modelling error is not a
# result). The median bound went from 5 % to 4.5 % when the zoo's BERT
# and Transformer became their programs' graphs (4.7 -> 4.1 %); it stays
# at 4.5 % although the median is 3.5 % since the TensorFlow BERT row became
# exact by calibration (study.TF1BERTSessionRunGap), which is no result
VALIDATE_MEDIAN    ?= 0.045
VALIDATE_WORST     ?= 0.10
VALIDATE_MULTI_GPU ?= 0.10
VALIDATE_FLAGS = --max-median $(VALIDATE_MEDIAN) --max-worst $(VALIDATE_WORST) --max-multi-gpu $(VALIDATE_MULTI_GPU)

# the large-model simulator against validation/llm.tsv (a copy of
# ../shared/fidelity/llm.tsv with its sources): issue 26 asks median
# |error| <= 10 % and worst <= 25 %. Both hold: median 4.7 %, worst
# +24.1 % (the GPT-OSS 120B row, simulated too fast; every other row is
# within 10.7 %; `placesim validate validation/llm.tsv --explain
# mbr-gptoss-120b-bf16-h100-64` lists its modelled MoE mechanisms;
# README "Large transformers", Validation). CI holds the issue's 25 % for
# the worst and what is reached, rounded up to 0.5 %, for the median
LLM_VALIDATE_MEDIAN ?= 0.05
LLM_VALIDATE_WORST  ?= 0.25
LLM_VALIDATE_FLAGS = --max-median $(LLM_VALIDATE_MEDIAN) --max-worst $(LLM_VALIDATE_WORST)

test: deps
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...
	$(GO) run ./cmd/placesim validate validation/published.tsv $(VALIDATE_FLAGS)
	$(GO) run ./cmd/placesim validate validation/llm.tsv $(LLM_VALIDATE_FLAGS)

validate:
	$(GO) run ./cmd/placesim validate validation/published.tsv $(VALIDATE_FLAGS)
	$(GO) run ./cmd/placesim validate validation/llm.tsv $(LLM_VALIDATE_FLAGS)

# issue 29's check beyond the shipped set (checks/dle-beyond.tsv: 85
# published DeepLearningExamples settings, none in validation/, none used
# to set a number): a report, not a gate. The issue asks median |error|
# <= 8 % and worst <= 25 % there; README "Fidelity" says where it stands
check-beyond:
	$(GO) run ./cmd/placesim validate checks/dle-beyond.tsv

# every benchmark, then the engine's speed against commit 64f744f (the
# engine before issue 17) measured in the same run: both trees built side
# by side, their benchmarks alternated on one core (no network; ROUNDS,
# BENCHTIME, CALLGRIND=1 for instruction counts: see the script)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	scripts/bench-engine-ratio.sh

bench-ratio:
	scripts/bench-engine-ratio.sh

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
