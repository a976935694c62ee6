#!/usr/bin/env bash
# A standalone ZooKeeper on 127.0.0.1 for hpgraph's hama runtime (docs/runtimes.md).
#
#   scripts/zookeeper.sh start  [--port P] [--dir D] [--no-fsync]
#   scripts/zookeeper.sh status [--port P] [--dir D]
#   scripts/zookeeper.sh stop   [--port P] [--dir D]
#
# start writes D/zoo.cfg (loopback only, data in D/data), runs
# `java -cp <jars> org.apache.zookeeper.server.quorum.QuorumPeerMain D/zoo.cfg` in the
# background (pid in D/zookeeper.pid, output in D/zookeeper.log) and returns once the
# server answers `ruok`. Jars: $ZOOKEEPER_HOME/lib/*.jar (an upstream release) or Debian's
# /usr/share/java/zookeeper.jar (apt-get install --no-install-recommends zookeeper).
# Defaults: port 2181, D = ${TMPDIR:-/tmp}/hpgraph-zookeeper-<port>.
# Then: export HPGRAPH_ZOOKEEPER=127.0.0.1:<port> (or hpgraph cbench --zookeeper ...).
set -euo pipefail

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
port=2181
dir=
fsync=yes
while [ $# -gt 0 ]; do
    case $1 in
        --port) port=${2:?--port needs a value}; shift 2 ;;
        --dir) dir=${2:?--dir needs a value}; shift 2 ;;
        --no-fsync) fsync=no; shift ;;
        -h|--help) usage ;;
        *) echo "zookeeper.sh: unknown option $1" >&2; usage ;;
    esac
done
case $port in ''|*[!0-9]*) echo "zookeeper.sh: bad port '$port'" >&2; exit 2 ;; esac
dir=${dir:-${TMPDIR:-/tmp}/hpgraph-zookeeper-$port}
pidfile=$dir/zookeeper.pid

ruok() {  # prints imok when a server answers on the port
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && printf ruok >&3 && head -c 4 <&3" \
        2>/dev/null || true
}

running_pid() {  # the pid from the pid file, if that process is alive
    [ -f "$pidfile" ] || return 1
    local pid
    pid=$(cat "$pidfile")
    kill -0 "$pid" 2>/dev/null && echo "$pid"
}

classpath() {
    if [ -n "${ZOOKEEPER_HOME:-}" ]; then
        local jars
        jars=$(ls "$ZOOKEEPER_HOME"/lib/*.jar 2>/dev/null | tr '\n' ':')
        [ -n "$jars" ] || { echo "zookeeper.sh: no jars in $ZOOKEEPER_HOME/lib" >&2; exit 1; }
        echo "${jars%:}"
    elif [ -f /usr/share/java/zookeeper.jar ]; then
        echo /usr/share/java/zookeeper.jar  # its manifest names the dependencies
    else
        echo "zookeeper.sh: ZooKeeper is not installed:" \
            "apt-get install --no-install-recommends zookeeper, or set ZOOKEEPER_HOME" >&2
        exit 1
    fi
}

case $cmd in
start)
    if pid=$(running_pid) && [ "$(ruok)" = imok ]; then
        echo "ZooKeeper already running on 127.0.0.1:$port (pid $pid, dir $dir)"
        exit 0
    fi
    if [ "$(ruok)" = imok ]; then
        echo "zookeeper.sh: another server already answers on port $port" >&2
        exit 1
    fi
    java=${JAVA_HOME:+$JAVA_HOME/bin/}java
    command -v "$java" >/dev/null || { echo "zookeeper.sh: no java (install a JRE)" >&2; exit 1; }
    cp=$(classpath)
    mkdir -p "$dir/data"
    cat > "$dir/zoo.cfg" <<EOF
# written by hpgraph scripts/zookeeper.sh: standalone, loopback only
tickTime=2000
dataDir=$dir/data
clientPort=$port
clientPortAddress=127.0.0.1
maxClientCnxns=0
forceSync=$fsync
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr
EOF
    nohup "$java" -Xms32m -Xmx256m -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
        -cp "$cp" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" \
        > "$dir/zookeeper.log" 2>&1 < /dev/null &
    pid=$!
    echo "$pid" > "$pidfile"
    for _ in $(seq 300); do  # up to 30 s
        if [ "$(ruok)" = imok ]; then
            echo "ZooKeeper running on 127.0.0.1:$port (pid $pid, dir $dir)"
            echo "export HPGRAPH_ZOOKEEPER=127.0.0.1:$port"
            exit 0
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "zookeeper.sh: the server exited; log $dir/zookeeper.log:" >&2
            tail -20 "$dir/zookeeper.log" >&2
            rm -f "$pidfile"
            exit 1
        fi
        sleep 0.1
    done
    echo "zookeeper.sh: no answer on port $port after 30 s; stopping pid $pid" >&2
    kill "$pid" 2>/dev/null || true
    rm -f "$pidfile"
    exit 1
    ;;
stop)
    if ! pid=$(running_pid); then
        echo "ZooKeeper not running (no live pid in $pidfile)"
        rm -f "$pidfile"
        exit 0
    fi
    kill -TERM "$pid"
    for _ in $(seq 100); do  # up to 10 s for a clean shutdown
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "zookeeper.sh: pid $pid ignored SIGTERM for 10 s; killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
    echo "ZooKeeper on 127.0.0.1:$port stopped (pid $pid)"
    ;;
status)
    if [ "$(ruok)" = imok ]; then
        pid=$(running_pid || echo "not started by this script")
        echo "ZooKeeper running on 127.0.0.1:$port (pid $pid)"
        exit 0
    fi
    echo "ZooKeeper not answering on 127.0.0.1:$port"
    exit 3
    ;;
*)
    usage
    ;;
esac
