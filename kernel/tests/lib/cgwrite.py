#!/usr/bin/env python3
"""Write one string to a file with a single write(2) and report the outcome.

    cgwrite.py FILE STRING      prints OK, or the errno name (EINVAL, ENODEV...)
    cgwrite.py -x FILE HEX      the same, STRING given as hex bytes

cgroup files must be written in one unbuffered write() so that the kernel's
error reaches the caller; shell redirections may split or buffer. The exit
status is 0 whatever the write did (the caller compares the printed word);
2 on usage errors.
"""
import errno
import os
import sys


def main(argv):
    hexmode = len(argv) > 1 and argv[1] == "-x"
    args = argv[2:] if hexmode else argv[1:]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    path, text = args
    data = bytes.fromhex(text) if hexmode else text.encode()
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        print("open:" + errno.errorcode.get(e.errno, str(e.errno)))
        return 0
    try:
        n = os.write(fd, data)
        print("OK" if n == len(data) else "SHORT:%d" % n)
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))
    finally:
        os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
