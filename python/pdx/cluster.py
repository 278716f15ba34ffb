"""Joining the Ray cluster a command runs on: a local one started here, or an existing one at ``--address``.

Two of Ray's habits, kept out of pdx's commands:

- ``ray.init()`` with no address joins a cluster this machine already runs (one ``ray start`` made), where the
  commands promise a local cluster of their own; ``address="local"`` always starts one.
- ``ray.init(address=...)`` waits for a cluster that does not answer, retrying for minutes and writing a warning per
  retry to standard error: a mistyped address or a stopped cluster looks like a hang. So an address is first
  checked by connecting to it, and one that nothing answers at is refused in one line; a cluster that answers but
  refuses the command (it asks for a token) is one line too. (A port that answers but is not a Ray cluster is left
  to Ray.)
"""

import contextlib
import logging
import os
import socket
import sys

# Ray's own notices stay off the driver's standard error, which holds pdx's one line when something is refused.
QUIET = dict(log_to_driver=False, logging_level=logging.ERROR)

# Seconds to wait for an address to accept a connection: a cluster on the network answers well within it.
CONNECT_SECONDS = 10.0


class ClusterError(Exception):
    """No Ray cluster to join at the address given; the message names it."""


def host_and_port(address):
    """``HOST:PORT`` or ``ray://HOST:PORT`` (Ray Client) as a host and a port number; ``None`` for ``auto``, which
    Ray resolves from the cluster this machine started. Anything else is refused."""
    if address == "auto":
        return None
    rest = address[len("ray://") :] if address.startswith("ray://") else address
    host, _, port = rest.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(f"--address {address}: not HOST:PORT, ray://HOST:PORT or auto")
    return host, int(port)


def check_reachable(address, seconds=CONNECT_SECONDS):
    """Raise ``ClusterError`` unless something at ``address`` accepts a connection within ``seconds``."""
    target = host_and_port(address)
    if target is None:
        return
    try:
        with socket.create_connection(target, timeout=seconds):
            pass
    except OSError as error:
        reason = "no answer" if isinstance(error, TimeoutError) else (error.strerror or str(error))
        raise ClusterError(f"--address {address}: no Ray cluster answers there ({reason})") from None


def join(ray, address=None, num_cpus=None):
    """Connect this process to the cluster at ``address``, or start a local one of ``num_cpus`` CPUs (all when
    ``None``) without a dashboard. Raises ``ClusterError`` for an address nothing answers at, or a cluster that
    refuses this process (e.g. one that asks for a token it was not given)."""
    if address is None:
        # "local": a new cluster even where this machine runs one already, which `ray.init()` would join instead.
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, **QUIET)
        return
    check_reachable(address)
    try:
        with standard_error_discarded():
            ray.init(address=address, **QUIET)
    except ConnectionError as error:
        raise ClusterError(refusal(address, error)) from None


@contextlib.contextmanager
def standard_error_discarded():
    """Standard error (the file descriptor, not only Python's stream) goes nowhere for the block: Ray's core writes
    a warning per retry of a refused connection to it directly, past ``logging_level`` and its own settings."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as sink:
            os.dup2(sink.fileno(), 2)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def refusal(address, error):
    """One line for Ray's refusal to join: its own message runs to a paragraph after a traceback."""
    chain = []
    while error is not None and len(chain) < 8:
        chain.append(error)
        error = error.__cause__ or error.__context__
    told = " ".join(f"{type(link).__name__} {link}" for link in chain)
    if "AuthenticationError" in told or "InvalidAuthToken" in told:
        return (
            f"--address {address}: the cluster asks for its authentication token (RAY_AUTH_MODE=token, with the "
            "token in ~/.ray/auth_token or RAY_AUTH_TOKEN, as Ray's token authentication describes)"
        )
    first_line = str(chain[0]).strip().splitlines()[0] if str(chain[0]).strip() else type(chain[0]).__name__
    return f"--address {address}: cannot join the Ray cluster there ({first_line})"
