# liken's build. `make` builds the static binary at out/liken; see README.md.
#
# Cargo's target directory lives outside the clone (a CI clone is fresh each
# run, the cache is not); override CARGO_TARGET_DIR to put it elsewhere.

SHELL := /bin/bash
export CARGO_TARGET_DIR ?= $(HOME)/.cache/liken/cargo-target
TARGET := x86_64-unknown-linux-gnu
STATIC := -C target-feature=+crt-static
RELEASE_BIN := $(CARGO_TARGET_DIR)/$(TARGET)/release/liken
# The development stamp, read fresh on every make (see src/buildinfo/build.rs).
export LIKEN_GIT_DESCRIBE := $(shell git describe --always --dirty --tags 2>/dev/null)

.PHONY: all liken run crds docs testenv test lint fuzz bench clean FORCE

all: liken

# --target is explicit so build scripts and proc-macros stay dynamic and
# only the shipped binary is linked static.
liken: out/liken
out/liken: FORCE
	RUSTFLAGS='$(STATIC)' cargo build --release --locked --target $(TARGET) --bin liken
	@mkdir -p out
	@cp -f $(RELEASE_BIN) out/liken.tmp && mv -f out/liken.tmp out/liken
	@echo "built out/liken ($$(out/liken version))"

# The README's main command: build the release and boot a liken machine in
# QEMU. The image and the boot are not built yet, so this builds the binary
# and says so instead of pretending.
run: out/liken
	@echo "make run: the liken image and its QEMU boot are not built yet; out/liken is built ($$(out/liken version))." >&2
	@exit 1

# The CRDs are generated from the Rust types; the tests fail if the
# committed files differ from what this writes.
crds:
	cargo run -q --locked -p liken-documents --example crds -- manifests

# The Cluster and Machine reference pages, generated from the CRDs.
docs: crds
	cargo run -q --locked -p liken-documents --example docs -- docs/reference

# The test control plane (kube-apiserver, kube-controller-manager, kine),
# built once per pinned version into a cache outside the clone.
testenv:
	tests/controlplane/build.sh

lint:
	cargo fmt --all -- --check
	cargo clippy --locked --workspace --all-targets -- -D warnings

# Everything CI runs. The tests find the static binary at out/liken and the
# control plane at out/testenv/bin.
test: out/liken testenv lint
	LIKEN_BIN=$(CURDIR)/out/liken LIKEN_TESTENV=$(CURDIR)/out/testenv/bin \
		cargo test --locked --workspace --no-fail-fast

# Bounded fuzzing of every document parser (not part of CI).
FUZZ_SECONDS ?= 60
fuzz:
	command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
	cd fuzz && for t in $$(RUSTC_BOOTSTRAP=1 cargo fuzz list); do \
		RUSTC_BOOTSTRAP=1 cargo fuzz run $$t -- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

# Each benchmark reports a ratio against a baseline measured in the same run
# (the channel: liken fetch against curl + sha256sum of the same release).
bench: out/liken
	bash bench/channel.sh $(CURDIR)/out/liken

clean:
	rm -rf out

FORCE:
