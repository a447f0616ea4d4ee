# Sourced by the tests that start ranks torchrun style (MASTER_PORT,
# CCL_COMM_ID): free_port prints a TCP port on 127.0.0.1 for a bootstrap
# root to listen on.
#
# The port comes from below the kernel's ephemeral range
# (/proc/sys/net/ipv4/ip_local_port_range), chosen at random and checked
# free. A port the kernel handed out (bind to port 0) is in that range, and
# between our check and the root's bind the kernel may give it to any
# connecting socket of the tests running beside us (CI saw "bind
# 127.0.0.1:38874: Address already in use"). Below the range only another
# test's random pick can take it.
#
# Under torchrun's variables the root listens on MASTER_PORT + 1 (torchrun's
# store holds MASTER_PORT): give MASTER_PORT=$((port - 1)), so that the port
# checked here is the one the root takes.
free_port() {
  python3 - <<'PY'
import random, socket
low = 32768
try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low = int(f.read().split()[0])
except (OSError, ValueError, IndexError):
    pass
lo, hi = 10000, max(10001, low - 1)
for _ in range(200):
    port = random.randint(lo, hi)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
else:
    raise SystemExit("free_port: no free port in %d-%d" % (lo, hi))
PY
}
