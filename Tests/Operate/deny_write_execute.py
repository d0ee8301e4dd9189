"""Runs a program the way systemd's MemoryDenyWriteExecute=yes does: no memory both writable and executable, none made
executable once written (the kernel's PR_SET_MDWE with PR_MDWE_REFUSE_EXEC_GAIN, kept across execve). Exits 3 when the
kernel cannot (before Linux 6.3). Usage: deny_write_execute.py PROGRAM [ARGUMENT...]"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1
if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
    print("prctl(PR_SET_MDWE): %s" % os.strerror(ctypes.get_errno()), file=sys.stderr)
    sys.exit(3)
os.execv(sys.argv[1], sys.argv[1:])
