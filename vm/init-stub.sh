#!/bin/sh
# PID 1 of the guest image (installed as /sbin/ioweight-init). It only mounts
# what is needed to reach the 9p share of the work tree and hands over to the
# repository's vm/guest-init.sh, so the real init can change without an image
# rebuild.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,access=any ioweight /ioweight; then
	echo "ioweight-init: cannot mount the 9p share 'ioweight'" > /dev/console
	exec /bin/sh
fi
exec /bin/bash /ioweight/vm/guest-init.sh
