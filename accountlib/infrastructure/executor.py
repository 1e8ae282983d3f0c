"""A generic job executor: a local process pool or a Dask cluster, with progress, failures and a folder lock.

Infrastructure layer of :mod:`accountlib`: it knows nothing of census pairs, DP-SGD or notebooks.
Applications hand :func:`run_jobs` a picklable function and a list of argument tuples; each job
writes its own result files atomically (:mod:`accountlib.infrastructure.atomic`), so an interrupted
sweep loses at most the jobs in flight and a re-run skips finished work (the application decides
what "finished" means). A folder lock (:func:`sweep_lock`) refuses a second sweep on the same output
folder; pool workers die with their parent; a failed job does not stop the others, and the failures
come back together as one :class:`SweepError`.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

__all__ = ["run_jobs", "SweepError", "sweep_lock", "check_scheduler_address", "SCHEDULER_TIMEOUT", "last_line"]


class _FolderLock:
    """An exclusive ``fcntl.flock`` on ``out_dir/.sweep.lock``, held on one open descriptor for the sweep's
    lifetime (the kernel releases it if the process dies).

    The file is removed on exit while still locked. A process that opened it before that and locks it after
    would hold a lock on a file nobody else can see, while a third process creates and locks a new one: so
    after taking the lock, the descriptor is checked to still be the file at that path, and if not (removed, or
    replaced), the lock is taken again on the file now there. Two processes therefore never both hold it.
    """

    def __init__(self, out_dir: Path):
        self.path = Path(out_dir) / ".sweep.lock"
        self.handle = None

    def __enter__(self):
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(100):
            handle = open(self.path, "a+", encoding="utf-8")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.seek(0)
                holder = handle.read().strip() or "another process"
                handle.close()
                raise SweepError(f"another sweep ({holder}) is running on {self.path.parent}: one sweep at a time per "
                                 f"folder (lock file {self.path})", []) from None
            try:
                same = os.fstat(handle.fileno()).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            handle.close()  # the file we locked was removed meanwhile: lock the one now at the path
        else:  # pragma: no cover - the lock file keeps vanishing
            raise SweepError(f"cannot hold the lock file {self.path}: it keeps being removed", [])
        self.handle = handle
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        return self

    def __exit__(self, *exc):
        try:
            self.path.unlink()  # while still held: a process that opened this file meanwhile sees it gone
        except OSError:
            pass
        self.handle.close()  # releases the lock
        return False


def sweep_lock(out_dir) -> _FolderLock:
    """Context manager: hold the folder's sweep lock (raises :class:`SweepError` if another sweep holds it)."""
    return _FolderLock(Path(out_dir))


def _die_with_parent(parent: int) -> None:
    """Pool worker initializer: end this worker when the parent dies (no orphans finishing jobs nobody logs).

    Linux: prctl(PR_SET_PDEATHSIG, SIGKILL); everywhere: a daemon thread that polls the parent pid.
    """
    import signal

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)

    def watch():
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watchdog").start()


SCHEDULER_TIMEOUT = 10  # seconds to reach a Dask scheduler before giving up
_ADDRESS = re.compile(r"^(tcp|tls|ucx|ws|wss|inproc)://[^\s/:]+(:\d{1,5})?/?$")


def check_scheduler_address(address: str) -> str:
    """Refuse anything that is not a Dask scheduler address such as ``tcp://HOST:8786`` (port 1..65535)."""
    if not isinstance(address, str) or not _ADDRESS.match(address):
        raise SweepError(f"--scheduler must be a Dask scheduler address such as tcp://HOST:8786; got {address!r}", [])
    port = address.rstrip("/").rpartition("//")[2].partition(":")[2]
    if port and not 1 <= int(port) <= 65535:
        raise SweepError(f"--scheduler {address}: the port must be in 1..65535; got {int(port)}", [])
    return address


def _check_scheduler_answers(address: str) -> None:
    """Raise :class:`SweepError` within ``SCHEDULER_TIMEOUT`` seconds unless a ``tcp://`` address answers as a Dask
    scheduler does: it accepts the connection and at once sends its handshake, a message whose first 8 bytes
    are the (small) length of its frames. Refused connections, hosts that do not resolve, silence, a closed
    connection and anything else on the wire (an HTTP or SSH server, say, whose first bytes Dask would read as a
    length of petabytes and try to allocate) are reported, with what was found. Other protocols and an address
    without a port (Dask refuses it itself) are left to Dask's own connection and timeout."""
    import socket
    import struct

    host, _, port = address.removeprefix("tcp://").rstrip("/").partition(":")
    if not address.startswith("tcp://") or not port:
        return
    deadline = time.monotonic() + SCHEDULER_TIMEOUT
    received, connected = b"", False
    try:
        with socket.create_connection((host, int(port)), timeout=SCHEDULER_TIMEOUT) as connection:
            connected = True
            while len(received) < 8:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                connection.settimeout(left)
                chunk = connection.recv(8 - len(received))
                if not chunk:
                    break
                received += chunk
    except ConnectionRefusedError:
        reason = "the connection was refused (is a scheduler running there?)"
    except TimeoutError:
        reason = (f"it accepted the connection but sent nothing within {SCHEDULER_TIMEOUT} s (a Dask scheduler sends "
                  "its handshake at once: is something else listening there?)" if connected
                  else f"no answer within {SCHEDULER_TIMEOUT} s")
    except OSError as error:
        reason = f"{type(error).__name__}: {last_line(error)}"
    else:
        if len(received) < 8:
            reason = (f"it accepted the connection and closed it after {len(received)} bytes "
                      f"({received!r}): not a Dask scheduler")
        elif not 0 < struct.unpack("<Q", received)[0] < 2**24:
            reason = f"it does not speak the Dask protocol (its first bytes are {received!r})"
        else:
            return
    raise SweepError(f"could not reach the Dask scheduler at {address}: {reason}", [])


# -- executors ------------------------------------------------------------------------------------


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm ships with the book extra
        return None
    return tqdm(total=total, unit="job", smoothing=0.1, file=sys.stderr)


def run_jobs(function, jobs: list[tuple], *, scheduler: str | None = None, workers: int | None = None,
             progress: bool = True, on_result=None) -> list:
    """Run ``function(*args)`` for every args tuple in ``jobs``; return the results in completion order.

    By default a local ``ProcessPoolExecutor`` (``workers`` processes, default:
    all cores); with ``scheduler`` (an address such as ``tcp://127.0.0.1:8786``)
    the jobs go to that Dask distributed cluster instead. A progress bar shows
    jobs done and the estimated time left. ``on_result`` is called with each
    result as it arrives. A failing job does not stop the others: when all have
    run, :class:`SweepError` reports every failure (finished jobs keep their files).
    """
    bar = _progress(len(jobs), progress)
    results, failures = [], []

    def settle(args, outcome):
        try:
            results.append(_collect(outcome(), bar, on_result))
        except Exception as error:  # noqa: BLE001 - reported together below
            failures.append((args, error))

    if scheduler:
        check_scheduler_address(scheduler)
    try:
        if scheduler:
            from dask.distributed import Client
            from dask.distributed import as_completed as dask_completed

            _check_scheduler_answers(scheduler)
            try:
                client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as error:
                raise SweepError(f"could not reach the Dask scheduler at {scheduler} within {SCHEDULER_TIMEOUT} s "
                                 f"({type(error).__name__}: {last_line(error)})", []) from None
            with client:
                futures = {client.submit(function, *args, pure=False): args for args in jobs}
                for future in dask_completed(futures):
                    settle(futures[future], future.result)
        elif workers == 1:
            for args in jobs:
                settle(args, lambda: function(*args))
        else:
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_die_with_parent, initargs=(os.getpid(),))
            try:
                futures = {pool.submit(function, *args): args for args in jobs}
                for future in as_completed(futures):
                    settle(futures[future], future.result)
            except BaseException:  # Ctrl-C or an error: the jobs not yet started are dropped, not run out
                pool.shutdown(wait=True, cancel_futures=True)
                raise
            pool.shutdown(wait=True)
    finally:
        if bar is not None:
            bar.close()
    if failures:
        lines = "; ".join(f"{args!r}: {type(error).__name__}: {last_line(error)}" for args, error in failures[:5])
        more = f"; and {len(failures) - 5} more" if len(failures) > 5 else ""
        raise SweepError(f"{len(failures)} of {len(jobs)} jobs failed (the others finished and kept their "
                         f"files; re-running retries only the failed ones): {lines}{more}", failures)
    return results


def last_line(error: Exception) -> str:
    """The last non-empty line of an error's message (papermill puts the cell's exception there)."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


class SweepError(RuntimeError):
    """Some jobs of a sweep failed; ``failures`` holds (args, exception) for each."""

    def __init__(self, message: str, failures: list):
        super().__init__(message)
        self.failures = failures


def _collect(result, bar, on_result):
    if bar is not None:
        bar.update(1)
    if on_result is not None:
        on_result(result)
    return result
