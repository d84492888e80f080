# ioweight: top-level build. Every target rebuilds only what changed; the
# scripts it calls keep stamps keyed on their inputs (series + patches,
# config fragments, package lists).
#
#   make demo            the main job: build what is missing, boot the guest,
#                        run two competing fio pods without and with io.weight
#   make demo-compare    the demo plus upstream io.cost on the baseline kernel
#   make test            everything: host unit tests, guest kernel tests, e2e
#   make kernel [KVARIANT=ioweight|baseline|debug]
#   make image | hook | hook-check | bench | bench-quick | vm-shell
#   make hook-deb        build/deb/ioweight-hook_*.deb (dpkg-buildpackage + lintian)
#   make acceptance      the controller's acceptance measurements (tens of min);
#                        exits non-zero if a figure misses its target
#   make kernel-refresh  turn commits in build/linux back into kernel/patches
#   make checkpatch | clean | distclean

SHELL := /bin/bash
KVARIANT ?= ioweight
TOP := $(CURDIR)
BZIMAGE = build/kernel-$(KVARIANT)/arch/x86/boot/bzImage
HOST_PKGS := vm/host-packages.txt $(wildcard oci-hook/host-packages.txt) $(wildcard e2e/host-packages.txt)

.PHONY: all deps kernel kernel-tree image hook hook-check hook-deb test demo demo-compare bench \
	bench-quick acceptance vm-shell test-stress kernel-refresh check-series checkpatch clean distclean

all: kernel image hook

deps:
	@vm/deps.sh $(HOST_PKGS)

kernel-tree: deps
	@kernel/scripts/tree.sh

kernel: kernel-tree
	@kernel/scripts/build.sh $(KVARIANT)

image: deps
	@vm/build-image.sh

hook: deps
	@if [ -f oci-hook/Makefile ]; then $(MAKE) -s -C oci-hook; fi

hook-check: deps
	@$(MAKE) -s -C oci-hook check

hook-deb: deps
	@deploy/build-hook-deb.sh

test: deps
	@vm/make-test.sh

test-stress: deps
	@STAGES="build stress" vm/make-test.sh

demo: deps
	@e2e/demo.sh

demo-compare: deps
	@e2e/demo.sh --compare

bench: deps
	@bench/run.sh --full

bench-quick: deps
	@bench/run.sh --quick

acceptance: deps
	@kernel/measure/acceptance.sh

vm-shell: kernel image hook
	@vm/run.sh --kernel $(KVARIANT) --disk size=2G,iops=1000,iops-size=4096 \
		--nullb "nr_devices=1 irqmode=2 completion_nsec=1000000 hw_queue_depth=2" \
		--interactive

kernel-refresh:
	@kernel/scripts/refresh.sh

# every prefix of the series builds (W=1 on block/ and kernel/bpf/) and
# passes checkpatch --strict
check-series: deps
	@kernel/scripts/check-series.sh

checkpatch: kernel-tree
	@cd build/linux && PATH=/usr/bin:$$PATH ./scripts/checkpatch.pl --strict -q \
		$(addprefix $(TOP)/kernel/patches/,$(shell sed -e 's/#.*//' kernel/series))

clean:
	rm -rf build/kernel-* build/vm build/hook build/dev build/demo build/bench

distclean:
	rm -rf build
