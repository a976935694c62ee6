"""A standalone Apache ZooKeeper server on the loopback interface, for the ``hama``
runtime's barrier (:mod:`hpgraph.runtimes.hama`), its tests and CBench.

The server is the JVM one from a distribution package (Debian's ``zookeeper``: jars in
``/usr/share/java``) or an upstream tarball (``$ZOOKEEPER_HOME/lib``), started as
``java -cp <jars> org.apache.zookeeper.server.quorum.QuorumPeerMain <zoo.cfg>`` with a
config of our own (the packaged init scripts assume ``/etc`` and a system user). It binds
``127.0.0.1`` only, keeps its data in a temporary directory, and answers the ``ruok``
four-letter command when it is ready (about 0.5 s after the JVM starts).

``forceSync`` stays at ZooKeeper's default (``yes``: every write is fsynced to the
transaction log before it is acknowledged), as in a Hama deployment; pass
``force_sync=False`` to measure the barrier without the disk in the path.

The shell equivalent is ``scripts/zookeeper.sh start|stop|status``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from hpgraph.errors import InvalidArgumentError

__all__ = [
    "ZooKeeperServer",
    "start_zookeeper",
    "zookeeper_classpath",
    "zookeeper_available",
    "ruok",
    "NO_ZOOKEEPER",
]

#: The hint every "not installed" message gives.
NO_ZOOKEEPER = (
    "ZooKeeper is not installed: apt-get install --no-install-recommends zookeeper "
    "(Debian/Ubuntu; needs a Java runtime), or set ZOOKEEPER_HOME to an upstream release"
)

_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain"


def zookeeper_classpath() -> str:
    """The server's class path: ``$ZOOKEEPER_HOME/lib/*.jar`` (an upstream release) or
    Debian's ``/usr/share/java/zookeeper.jar``, whose manifest names its dependencies."""
    home = os.environ.get("ZOOKEEPER_HOME")
    if home:
        jars = sorted(glob.glob(os.path.join(home, "lib", "*.jar")))
        jars += sorted(glob.glob(os.path.join(home, "zookeeper-*.jar")))
        if not jars:
            raise InvalidArgumentError(f"ZOOKEEPER_HOME={home} holds no lib/*.jar")
        return os.pathsep.join(jars)
    debian = "/usr/share/java/zookeeper.jar"
    if os.path.exists(debian):
        return debian
    raise InvalidArgumentError(NO_ZOOKEEPER)


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        raise InvalidArgumentError("no java executable: install a JRE or set JAVA_HOME")
    return java


def zookeeper_available() -> str | None:
    """None when a server can be started here, else the reason it cannot."""
    try:
        zookeeper_classpath()
        _java()
    except InvalidArgumentError as exc:
        return str(exc)
    return None


def ruok(host: str = "127.0.0.1", port: int = 2181, timeout: float = 1.0) -> bool:
    """Whether a ZooKeeper server answers ``imok`` to the ``ruok`` four-letter word."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(b"ruok")
            return s.recv(16) == b"imok"
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_CONFIG = """\
# written by hpgraph.runtimes.zookeeper: standalone, loopback only
tickTime=2000
dataDir={data}
clientPort={port}
clientPortAddress=127.0.0.1
maxClientCnxns=0
forceSync={force_sync}
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr
"""


class ZooKeeperServer:
    """One standalone server process; :meth:`start` returns when it answers ``ruok``.

    ``port=0`` picks a free loopback port; ``directory=None`` uses a temporary directory
    that :meth:`stop` removes. ``address`` is ``"127.0.0.1:PORT"`` (a kazoo host string).
    """

    def __init__(self, port: int = 0, directory: str | None = None, force_sync: bool = True):
        if not 0 <= port < 65536:
            raise InvalidArgumentError(f"ZooKeeper port {port} is not in 0..65535")
        self.port = port
        self.force_sync = force_sync
        self._own_dir = directory is None
        self.directory = directory
        self.proc: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> ZooKeeperServer:
        cp, java = zookeeper_classpath(), _java()
        if self._own_dir:
            self.directory = tempfile.mkdtemp(prefix="hpgraph-zk-")
        os.makedirs(os.path.join(self.directory, "data"), exist_ok=True)
        pick = self.port == 0
        for _ in range(3 if pick else 1):  # a picked port can be taken meanwhile: retry
            if pick:
                self.port = _free_port()
            if self._launch(cp, java, timeout):
                return self
        log = self._log_tail()
        self.stop()
        raise RuntimeError(f"ZooKeeper did not start on {self.address}:\n{log}")

    def _launch(self, cp, java, timeout) -> bool:
        cfg = os.path.join(self.directory, "zoo.cfg")
        with open(cfg, "w") as f:
            data = os.path.join(self.directory, "data")
            sync = "yes" if self.force_sync else "no"
            f.write(_CONFIG.format(data=data, port=self.port, force_sync=sync))
        log = open(os.path.join(self.directory, "zookeeper.log"), "wb")
        # A small heap and the serial collector: a barrier server holds a few hundred
        # znodes, and the machine's cores belong to the BSP tasks.
        cmd = [java, "-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true"]
        cmd += ["-cp", cp, _MAIN, cfg]
        self.proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.directory
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:  # exited: e.g. the port is taken
                self.proc = None
                return False
            if ruok("127.0.0.1", self.port, timeout=0.5):
                return True
            time.sleep(0.05)
        return False

    def _log_tail(self) -> str:
        try:
            with open(os.path.join(self.directory, "zookeeper.log"), errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (the JVM closes its sessions and files), SIGKILL after ``timeout``."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self._own_dir and self.directory:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None

    def __enter__(self):
        return self.start() if self.proc is None else self

    def __exit__(self, *exc):
        self.stop()

    def __repr__(self):
        state = "running" if self.proc is not None and self.proc.poll() is None else "stopped"
        return f"ZooKeeperServer({self.address}, {state})"


@contextlib.contextmanager
def start_zookeeper(port: int = 0, directory: str | None = None, force_sync: bool = True):
    """``with start_zookeeper() as zk: ... zk.address`` -- a server for the block."""
    server = ZooKeeperServer(port, directory, force_sync).start()
    try:
        yield server
    finally:
        server.stop()
